import type { ComponentChildren } from "preact"
import { useLayoutEffect, useRef } from "preact/hooks"
import { closeModal } from "../shell/modal.ts"
import { dialog } from "../shell/panels.ts"

const closeAny = () => {
  dialog.value = null
  closeModal()
}

/**
 * A native modal <dialog>: the page behind is inert, Tab stays among the dialog's controls and the browser's own (no
 * trap of our making), Escape closes it, and focus goes back to the message box afterwards.
 */
export const Modal = ({ title, children, onClose = closeAny, class: cls }: {
  title: string
  children: ComponentChildren
  onClose?: () => void
  class?: string
}) => {
  const ref = useRef<HTMLDialogElement>(null)
  useLayoutEffect(() => {
    if (!ref.current?.open) ref.current?.showModal()
  }, [])
  return (
    <dialog ref={ref} aria-label={title} class={cls} onClose={onClose}>
      <header><h2>{title}</h2><button type="button" class="icon" aria-label="Close" onClick={onClose}>✕</button></header>
      {children}
    </dialog>
  )
}
