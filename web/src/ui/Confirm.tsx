import { useFocus } from "./focus.ts"

/**
 * An in-page confirmation (role alertdialog) instead of window.confirm: a native dialog blocks the page's scripts,
 * the WebSocket's handlers included, and cannot be styled or named for assistive technology.
 */
export const Confirm = ({ id, title, text, action, onConfirm, onCancel }: {
  id: string
  title: string
  text: string
  action: string
  onConfirm: () => void
  onCancel: () => void
}) => {
  const button = useFocus<HTMLButtonElement>()
  return (
    <div class="confirm row" role="alertdialog" aria-label={title} aria-describedby={`confirm-${id}`}
      onKeyDown={(e) => e.key === "Escape" && onCancel()}>
      <span id={`confirm-${id}`}>{text}</span>
      <button type="button" class="danger" ref={button} onClick={onConfirm}>{action}</button>
      <button type="button" class="secondary" onClick={onCancel}>Cancel</button>
    </div>
  )
}
