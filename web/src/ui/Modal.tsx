import { useEffect, useRef } from "preact/hooks"
import { dialog } from "../shell/panels.ts"

/** A native <dialog>: focus trapped, Escape closes, the page behind inert. */
export const Modal = ({ title, children }: { title: string; children: any }) => {
  const ref = useRef<HTMLDialogElement>(null)
  useEffect(() => {
    ref.current?.showModal()
  }, [])
  return (
    <dialog ref={ref} aria-label={title} onClose={() => (dialog.value = null)}>
      <header><h2>{title}</h2><button type="button" class="icon" aria-label="Close" onClick={() => (dialog.value = null)}>✕</button></header>
      {children}
    </dialog>
  )
}
