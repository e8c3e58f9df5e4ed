import { navigate } from "../app/router.ts"
import { currentChannelId } from "../app/state.ts"
import { markViewed } from "../channels/state.ts"
import { focusMessageBox } from "../ui/messageBox.ts"
import { modal, openModal } from "./modal.ts"
import { panel } from "./panels.ts"

/**
 * Mattermost's keyboard shortcuts for the whole page (the message box has its own: Enter, Up, Shift+Up, /):
 * Ctrl/Cmd+K the switcher, Ctrl/Cmd+/ the list of shortcuts, Alt+Up/Down the previous/next channel of the sidebar and
 * Alt+Shift+Up/Down the previous/next unread one, Escape (with nothing open to close) closes the side panel or marks
 * the channel read. The sidebar's order is read from the page, so it is always what the person sees.
 */
const sidebarLinks = () => [...document.querySelectorAll<HTMLAnchorElement>('nav[aria-label="Channels"] li a[href]')]

const step = (direction: 1 | -1, unreadOnly: boolean) => {
  const all = sidebarLinks()
  if (all.length === 0) return
  // Where we are is the address, which navigate() changes at once; the sidebar's aria-current follows a render later,
  // so a second Alt+Arrow pressed right after the first stepped from the channel before it (from the first channel
  // up to the last one: a press of Alt+Down then Alt+Up ended in the last DM instead of where it started).
  const here = decodeURI(location.pathname)
  const byAddress = all.findIndex((a) => decodeURI(new URL(a.href).pathname) === here)
  const at = byAddress !== -1 ? byAddress : all.findIndex((a) => a.getAttribute("aria-current") === "page")
  for (let i = 1; i <= all.length; i++) {
    const next = all[(at + direction * i + all.length * 2) % all.length]
    if (!unreadOnly || next.classList.contains("unread")) {
      navigate(next.getAttribute("href")!)
      return
    }
  }
}

const somethingOpen = () => !!document.querySelector("dialog[open], .floating, .lightbox, .popover, .suggestions")

export const onGlobalKey = (e: KeyboardEvent) => {
  if (e.defaultPrevented || e.isComposing) return
  const mod = e.ctrlKey || e.metaKey
  if (mod && !e.altKey && !e.shiftKey && e.key.toLowerCase() === "k") {
    e.preventDefault()
    if (modal.value?.kind === "switcher") return
    openModal({ kind: "switcher" })
  } else if (mod && !e.altKey && e.key === "/") {
    e.preventDefault()
    openModal({ kind: "shortcuts" })
  } else if (e.altKey && !mod && (e.key === "ArrowUp" || e.key === "ArrowDown")) {
    if (document.querySelector("dialog[open]")) return
    e.preventDefault()
    step(e.key === "ArrowUp" ? -1 : 1, e.shiftKey)
  } else if (e.key === "Escape" && !mod && !e.altKey && !somethingOpen()) {
    if (panel.value && document.activeElement?.closest(".panel")) {
      panel.value = null
      focusMessageBox()
    } else if (currentChannelId.value) {
      void markViewed(currentChannelId.value)
    }
  }
}

let installed = false
export const installKeyboard = () => {
  if (installed) return
  installed = true
  document.addEventListener("keydown", onGlobalKey)
}
