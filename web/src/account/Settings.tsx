import { useState } from "preact/hooks"
import { client, errorMessage } from "../app/api.ts"
import { me } from "../app/state.ts"
import { Modal } from "../ui/Modal.tsx"
import { requestPermission } from "../notifications/desktop.ts"
import { SoundSetting } from "../notifications/SoundSetting.tsx"
import { NameFormatSetting, ThemeSetting } from "./Appearance.tsx"
import { applyDisplay, collapsedThreads, militaryTime } from "./preferences.ts"

const LEVELS = [
  <option key="all" value="all">All new messages</option>,
  <option key="mention" value="mention">Mentions and direct messages</option>,
  <option key="none" value="none">Nothing</option>
]

export const Settings = () => {
  const user = me.value!
  const [message, setMessage] = useState("")
  const [error, setError] = useState("")
  const saveProfile = async (e: Event) => {
    e.preventDefault()
    const data = new FormData(e.currentTarget as HTMLFormElement)
    try {
      me.value = await client.patchMe({ first_name: String(data.get("first_name")), last_name: String(data.get("last_name")), nickname: String(data.get("nickname")) })
      setMessage("Profile saved")
      setError("")
    } catch (err) {
      setError(errorMessage(err))
    }
  }
  // Applied at once (the checkbox follows the click), saved behind; a failed save puts the old value back.
  const display = async (name: string, value: string) => {
    const before = name === "use_military_time" ? String(militaryTime.value) : collapsedThreads.value ? "on" : "off"
    applyDisplay([{ category: "display_settings", name, value }])
    try {
      await client.savePreferences(user.id, [{ user_id: user.id, category: "display_settings", name, value }])
    } catch (err) {
      applyDisplay([{ category: "display_settings", name, value: before }])
      setError(errorMessage(err))
    }
  }
  const notifyFor = async (key: "desktop" | "push", level: string) => {
    try {
      me.value = await client.patchMe({ notify_props: { ...(me.value!.notify_props as any), [key]: level } } as any)
      setMessage("Notification preference saved")
    } catch (err) {
      setError(errorMessage(err))
    }
  }
  const picture = async (e: Event) => {
    const file = (e.currentTarget as HTMLInputElement).files?.[0]
    if (!file) return
    try {
      await client.uploadProfileImage(user.id, file)
      me.value = { ...user, last_picture_update: Date.now() }
      setMessage("Picture updated")
    } catch (err) {
      setError(errorMessage(err))
    }
  }
  return (
    <Modal title="Settings">
      {message && <p role="status">{message}</p>}
      {error && <p class="alert" role="alert">{error}</p>}
      <form onSubmit={saveProfile}>
        <h3>Profile</h3>
        <label>First name<input name="first_name" defaultValue={user.first_name} /></label>
        <label>Last name<input name="last_name" defaultValue={user.last_name} /></label>
        <label>Nickname<input name="nickname" defaultValue={user.nickname} /></label>
        <label>Profile picture<input type="file" accept="image/png,image/jpeg" onChange={picture} /></label>
        <button type="submit">Save profile</button>
      </form>
      <h3>Display</h3>
      <ThemeSetting onError={setError} onSaved={(m) => { setError(""); setMessage(m) }} />
      <NameFormatSetting onError={setError} />
      <label class="check"><input type="checkbox" checked={militaryTime.value} onChange={(e) => void display("use_military_time", e.currentTarget.checked ? "true" : "false")} /> 24-hour clock</label>
      <label class="check"><input type="checkbox" checked={collapsedThreads.value} onChange={(e) => void display("collapsed_reply_threads", e.currentTarget.checked ? "on" : "off")} /> Collapsed reply threads (replies only in the thread panel)</label>
      <h3>Notifications</h3>
      <label>Desktop notifications for
        <select value={(user.notify_props as any)?.desktop ?? "mention"} onChange={(e) => void notifyFor("desktop", e.currentTarget.value)}>
          {LEVELS}
        </select>
      </label>
      <SoundSetting onSaved={setMessage} onError={setError} />
      <label>Mobile push notifications for
        <select value={(user.notify_props as any)?.push ?? "mention"} onChange={(e) => void notifyFor("push", e.currentTarget.value)}>
          {LEVELS}
        </select>
      </label>
      <button type="button" class="secondary" onClick={() => void requestPermission().then((p) => setMessage(`Desktop notifications: ${p}`))}>
        Enable desktop notifications
      </button>
      <button type="button" class="secondary" onClick={() => void client.sendTestNotificaiton().then(
        () => { setError(""); setMessage("Test notification sent: a direct message from system-bot, pushed to your devices") },
        (err) => setError(errorMessage(err))
      )}>
        Send a test notification
      </button>
    </Modal>
  )
}

export default Settings
