import type { ServerChannel as Channel } from "@mattermost/types/channels"
import type { ComponentChildren } from "preact"
import { useState } from "preact/hooks"
import { errorMessage } from "../app/api.ts"
import { me } from "../app/state.ts"
import { setNotifyProps } from "../channels/actions.ts"
import { channelLabel, members } from "../channels/state.ts"
import { closeModal } from "../shell/modal.ts"
import { Modal } from "../ui/Modal.tsx"
import { playSound, SOUND_NAMES } from "./sound.ts"

const LEVEL_NAMES: Record<string, string> = { all: "For all activity", mention: "Only for mentions", none: "Never" }

const Levels = ({ name, legend, value, account, onChange, children }: {
  name: string; legend: string; value: string; account: string; onChange: (v: string) => void; children?: ComponentChildren
}) => (
  <fieldset>
    <legend>{legend}</legend>
    {["default", "all", "mention", "none"].map((v) => (
      <label class="check" key={v}>
        <input type="radio" name={name} value={v} checked={value === v} onChange={() => onChange(v)} />
        {v === "default" ? `Use my account setting (${(LEVEL_NAMES[account] ?? account).toLowerCase()})` : LEVEL_NAMES[v]}
      </label>
    ))}
    {children}
  </fieldset>
)

type Props = Record<string, string | undefined>

/**
 * Mattermost's channel notification preferences, saved on the membership (PUT /channels/{id}/members/{user}/notify_props):
 * mute (mark_unread "mention"), ignore @channel/@all/@here, desktop level with replies to followed threads and the
 * sound, mobile push level with its threads setting, and following every new thread of the channel.
 */
const ChannelNotifications = ({ channel }: { channel: Channel }) => {
  const start = (members.value[channel.id]?.notify_props ?? {}) as Props
  const account = (me.value?.notify_props ?? {}) as Props
  const [muted, setMuted] = useState(start.mark_unread === "mention")
  const [ignore, setIgnore] = useState(start.ignore_channel_mentions === "on" || ((start.ignore_channel_mentions ?? "default") === "default" && account.channel === "false"))
  const [desktop, setDesktop] = useState(start.desktop ?? "default")
  const [desktopThreads, setDesktopThreads] = useState((start.desktop_threads && start.desktop_threads !== "default" ? start.desktop_threads : account.desktop_threads ?? "all") === "all")
  const [sound, setSound] = useState(start.desktop_sound === "off" ? "off" : start.desktop_sound === "on" ? start.desktop_notification_sound || account.desktop_notification_sound || "Bing" : "default")
  const [push, setPush] = useState(start.push ?? "default")
  const [pushThreads, setPushThreads] = useState((start.push_threads && start.push_threads !== "default" ? start.push_threads : account.push_threads ?? "all") === "all")
  const [follow, setFollow] = useState(start.channel_auto_follow_threads === "on")
  const [error, setError] = useState("")
  const conversation = channel.type === "D" || channel.type === "G"
  const save = async (e: Event) => {
    e.preventDefault()
    const props: Record<string, string> = {
      mark_unread: muted ? "mention" : "all",
      desktop,
      push,
      desktop_threads: desktopThreads ? "all" : "mention",
      push_threads: pushThreads ? "all" : "mention",
      desktop_sound: sound === "default" ? "default" : sound === "off" ? "off" : "on",
      channel_auto_follow_threads: follow ? "on" : "off"
    }
    if (sound !== "default" && sound !== "off") props.desktop_notification_sound = sound
    // Direct and group messages have no @channel: their setting is left alone.
    if (!conversation) props.ignore_channel_mentions = ignore ? "on" : "off"
    try {
      await setNotifyProps(channel.id, props as never)
      closeModal()
    } catch (err) {
      setError(errorMessage(err))
    }
  }
  const accountSound = account.desktop_sound === "false" ? "no sound" : account.desktop_notification_sound || "Bing"
  return (
    <Modal title={`Notification preferences for ${channelLabel(channel)}`}>
      <form onSubmit={save} class="dialog-body">
        <fieldset>
          <legend>Mute or ignore</legend>
          <label class="check"><input type="checkbox" checked={muted} onChange={(e) => setMuted(e.currentTarget.checked)} /> Mute (mark unread only for mentions, no notifications)</label>
          {!conversation && (
            <label class="check"><input type="checkbox" checked={ignore} onChange={(e) => setIgnore(e.currentTarget.checked)} /> Ignore mentions for @channel, @here and @all</label>
          )}
        </fieldset>
        <Levels name="desktop" legend="Desktop notifications" value={desktop} account={account.desktop ?? "mention"} onChange={setDesktop}>
          <label class="check"><input type="checkbox" checked={desktopThreads} onChange={(e) => setDesktopThreads(e.currentTarget.checked)} /> Notify me about replies to threads I'm following</label>
          <label>Notification sound
            <select value={sound} onChange={(e) => { const v = e.currentTarget.value; setSound(v); if (v !== "default" && v !== "off") playSound(v) }}>
              <option value="default">Use my account setting ({accountSound})</option>
              <option value="off">No sound</option>
              {SOUND_NAMES.map((n) => <option key={n} value={n}>{n}</option>)}
            </select>
          </label>
        </Levels>
        <Levels name="push" legend="Mobile push notifications" value={push} account={account.push ?? "mention"} onChange={setPush}>
          <label class="check"><input type="checkbox" checked={pushThreads} onChange={(e) => setPushThreads(e.currentTarget.checked)} /> Notify me about replies to threads I'm following</label>
        </Levels>
        {!conversation && (
          <label class="check"><input type="checkbox" checked={follow} onChange={(e) => setFollow(e.currentTarget.checked)} /> Follow all new threads in this channel</label>
        )}
        {error && <p class="alert" role="alert">{error}</p>}
        <div class="row end"><button type="button" class="secondary" onClick={closeModal}>Cancel</button><button type="submit">Save</button></div>
      </form>
    </Modal>
  )
}

export default ChannelNotifications
