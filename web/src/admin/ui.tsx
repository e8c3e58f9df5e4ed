import type { ComponentChildren } from "preact"
import { useLayoutEffect, useRef, useState } from "preact/hooks"
import { errorMessage } from "../app/api.ts"
import { act, failure, notice } from "./state.ts"

/**
 * A modal dialog of the console (native <dialog>: the page behind is inert, Escape closes it, focus returns to the
 * button that opened it). `alert` makes it an alertdialog: the confirmation every destructive action goes through.
 */
export const ConsoleDialog = ({ title, children, onClose, alert = false, describedBy }: {
  title: string
  children: ComponentChildren
  onClose: () => void
  alert?: boolean
  describedBy?: string
}) => {
  const ref = useRef<HTMLDialogElement>(null)
  useLayoutEffect(() => {
    const opener = document.activeElement as HTMLElement | null
    if (!ref.current?.open) ref.current?.showModal()
    return () => opener?.isConnected && opener.focus()
  }, [])
  return (
    <dialog ref={ref} role={alert ? "alertdialog" : undefined} aria-label={title} aria-describedby={describedBy} onClose={onClose}>
      <header><h2>{title}</h2><button type="button" class="icon" aria-label="Close" onClick={onClose}>✕</button></header>
      {children}
    </dialog>
  )
}

/** "Are you sure?": names what will happen; the action button says it again (e.g. "Deactivate"). */
export const ConfirmDialog = ({ title, text, action, onConfirm, onCancel }: {
  title: string
  text: string
  action: string
  onConfirm: () => void
  onCancel: () => void
}) => (
  <ConsoleDialog title={title} alert onClose={onCancel} describedBy="confirm-text">
    <p id="confirm-text">{text}</p>
    <div class="row dialog-actions">
      <button type="button" class="danger" onClick={onConfirm}>{action}</button>
      <button type="button" class="secondary" autofocus onClick={onCancel}>Cancel</button>
    </div>
  </ConsoleDialog>
)

/** A destructive action waiting for its confirmation: what the dialog says, what runs, what is announced after. */
export interface Confirmation {
  readonly title: string
  readonly text: string
  readonly action: string
  readonly run: () => Promise<unknown>
  readonly done: string
}

/**
 * Every destructive action goes through a confirmation: `ask(...)` opens the dialog; confirmed, the action runs, its
 * outcome is announced and `after` (a reload) follows. Render `dialog` where the page's dialogs go.
 */
export const useConfirm = (after?: () => unknown) => {
  const [pending, setPending] = useState<Confirmation | null>(null)
  const dialog = pending && (
    <ConfirmDialog title={pending.title} text={pending.text} action={pending.action} onCancel={() => setPending(null)}
      onConfirm={() => { setPending(null); void act(pending.run, pending.done, after) }} />
  )
  return { ask: setPending, dialog }
}

/**
 * A dialog form's submit handler: the browser's own checks first (required, pattern, lengths, with its messages), then
 * `save` with the form's trimmed text fields by name (and the raw FormData); what `save` throws is kept in `error` for
 * the form's alert (FormError).
 */
export const useFormSubmit = (save: (field: (name: string) => string, data: FormData) => Promise<unknown> | void) => {
  const [error, setError] = useState("")
  const submit = async (e: Event) => {
    e.preventDefault()
    const form = e.currentTarget as HTMLFormElement
    if (!form.reportValidity()) return
    const data = new FormData(form)
    try {
      await save((name) => String(data.get(name) ?? "").trim(), data)
    } catch (err) {
      setError(errorMessage(err))
    }
  }
  return { error, setError, submit }
}

export const FormError = ({ error }: { error: string }) => (error ? <p role="alert" class="alert">{error}</p> : null)

/** The page's live regions: what the last action did, or why it failed. */
export const Outcome = ({ error }: { error?: string }) => (
  <>
    <p role="status" class="notice">{notice.value}</p>
    {(failure.value || error) && <p role="alert" class="alert">{failure.value || error}</p>}
  </>
)

/** A table that scrolls sideways on a narrow screen (focusable, so a keyboard can scroll it too). */
export const TableWrap = ({ label, children }: { label: string; children: ComponentChildren }) => (
  <div class="table-wrap" role="region" aria-label={label} tabIndex={0}>{children}</div>
)

export const Pager = ({ page, hasNext, onPage, label }: { page: number; hasNext: boolean; onPage: (p: number) => void; label: string }) => (
  <nav class="row pager" aria-label={`${label} pages`}>
    <button type="button" class="secondary" disabled={page === 0} onClick={() => onPage(page - 1)}>Previous page</button>
    <span>Page {page + 1}</span>
    <button type="button" class="secondary" disabled={!hasNext} onClick={() => onPage(page + 1)}>Next page</button>
  </nav>
)
