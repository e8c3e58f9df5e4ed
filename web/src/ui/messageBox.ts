/**
 * The message box of the open channel has the id below (the skip link's target). Focus goes back to it after
 * sign-in, a channel switch, sending, editing and closing a dialog, as in Mattermost, so typing always lands there.
 * Not on touch screens: focusing a text field there opens the on-screen keyboard over half the page.
 */
export const MESSAGE_BOX_ID = "message-box"

const typingElsewhere = (box: HTMLElement) => {
  const active = document.activeElement as HTMLElement | null
  if (!active || active === box) return false
  return active.isContentEditable || active.tagName === "TEXTAREA" || active.tagName === "SELECT" ||
    (active.tagName === "INPUT" && !["button", "checkbox", "radio", "submit", "reset", "file"].includes((active as HTMLInputElement).type)) ||
    // An open menu or popover the person is moving through with the arrow keys (ui/Menu.tsx, ui/Floating.tsx).
    active.closest("[role=menu], .floating, .popover") !== null
}

export const focusMessageBox = () => {
  if (typeof matchMedia === "function" && matchMedia("(hover: none) and (pointer: coarse)").matches) return
  // After the current task: a closing <dialog> first gives focus back to what opened it, then this takes it.
  setTimeout(() => {
    const box = document.getElementById(MESSAGE_BOX_ID)
    // Never taken from another field the person is typing in (the search box, a filter): a channel that finishes
    // loading after they moved on must not pull their keystrokes into the message box.
    if (box && !document.querySelector("dialog[open]") && !typingElsewhere(box)) box.focus()
  }, 0)
}

/** Focuses what a signal change is about to show (a panel's reply box), trying on the next few frames. */
export const focusWhenShown = (selector: string, frames = 10) => {
  const el = document.querySelector<HTMLElement>(selector)
  if (el) el.focus()
  else if (frames > 0) requestAnimationFrame(() => focusWhenShown(selector, frames - 1))
}
