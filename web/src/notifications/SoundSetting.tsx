import { client, errorMessage } from "../app/api.ts"
import { me } from "../app/state.ts"
import { playSound, SOUND_NAMES } from "./sound.ts"

/**
 * The account's notification sound (notify_props.desktop_sound "true"/"false" and desktop_notification_sound, the
 * keys the official apps read); a sound picked is played once.
 */
export const SoundSetting = ({ onSaved, onError }: { onSaved: (text: string) => void; onError: (text: string) => void }) => {
  const props = (me.value?.notify_props ?? {}) as Record<string, string | undefined>
  const value = props.desktop_sound === "false" ? "off" : props.desktop_notification_sound || "Bing"
  const change = async (v: string) => {
    if (v !== "off") playSound(v)
    const next = { ...props, desktop_sound: v === "off" ? "false" : "true", ...(v === "off" ? {} : { desktop_notification_sound: v }) }
    try {
      me.value = await client.patchMe({ notify_props: next } as never)
      onSaved("Notification sound saved")
    } catch (err) {
      onError(errorMessage(err))
    }
  }
  return (
    <label>Desktop notification sound
      <select value={value} onChange={(e) => void change(e.currentTarget.value)}>
        <option value="off">No sound</option>
        {SOUND_NAMES.map((n) => <option key={n} value={n}>{n}</option>)}
      </select>
    </label>
  )
}
