/**
 * The message box of the open channel has the id below (the skip link's target). Focus goes back to it after
 * sign-in, a channel switch, sending, editing and closing a dialog, as in Mattermost, so typing always lands there.
 * Not on touch screens: focusing a text field there opens the on-screen keyboard over half the page.
 */
export const MESSAGE_BOX_ID = "message-box"

export const focusMessageBox = () => {
  if (typeof matchMedia === "function" && matchMedia("(hover: none) and (pointer: coarse)").matches) return
  // After the current task: a closing <dialog> first gives focus back to what opened it, then this takes it.
  setTimeout(() => {
    const box = document.getElementById(MESSAGE_BOX_ID)
    if (box && !document.querySelector("dialog[open]")) box.focus()
  }, 0)
}

/** Focuses what a signal change is about to show (a panel's reply box), trying on the next few frames. */
export const focusWhenShown = (selector: string, frames = 10) => {
  const el = document.querySelector<HTMLElement>(selector)
  if (el) el.focus()
  else if (frames > 0) requestAnimationFrame(() => focusWhenShown(selector, frames - 1))
}
