import { signal } from "@preact/signals"
import { permission, requestPermission } from "./desktop.ts"

const DISMISSED = "desktop-notifications-banner"
const dismissed = signal(localStorage.getItem(DISMISSED) === "1")

/**
 * The ask for desktop notifications, as Mattermost shows it: a bar above the messages while the browser has not been
 * asked yet. Browsers only ask from a click, so the button asks; "Not now" hides the bar on this browser (Settings
 * keeps the same button).
 */
export const PermissionBanner = () => {
  if (permission.value !== "default" || dismissed.value) return null
  return (
    <section class="permission-banner" aria-label="Desktop notifications">
      <p>Get notified of direct messages and mentions while you are away from this tab.</p>
      <button type="button" onClick={() => void requestPermission()}>Enable desktop notifications</button>
      <button type="button" class="secondary" onClick={() => { localStorage.setItem(DISMISSED, "1"); dismissed.value = true }}>Not now</button>
    </section>
  )
}
