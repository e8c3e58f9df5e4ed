import { useState } from "preact/hooks"
import { client, errorMessage } from "../app/api.ts"
import { me } from "../app/state.ts"
import { dialog } from "../shell/panels.ts"
import { Modal } from "../ui/Modal.tsx"

export const CustomStatus = () => {
  const [error, setError] = useState("")
  const submit = async (e: Event) => {
    e.preventDefault()
    const data = new FormData(e.currentTarget as HTMLFormElement)
    const text = String(data.get("text") ?? "").trim()
    try {
      if (text === "") await client.unsetCustomStatus()
      else await client.updateCustomStatus({ emoji: String(data.get("emoji") || "speech_balloon"), text, duration: "" } as any)
      me.value = await client.getMe()
      dialog.value = null
    } catch (err) {
      setError(errorMessage(err))
    }
  }
  const current = (() => {
    try {
      return JSON.parse(String(me.value?.props?.customStatus ?? "{}")) as { emoji?: string; text?: string }
    } catch {
      return {}
    }
  })()
  return (
    <Modal title="Custom status">
      {error && <p class="alert" role="alert">{error}</p>}
      <form onSubmit={submit}>
        <label>Status text<input name="text" maxLength={100} defaultValue={current.text ?? ""} autoFocus placeholder="In a meeting" /></label>
        <label>Emoji name<input name="emoji" maxLength={64} defaultValue={current.emoji ?? "speech_balloon"} /></label>
        <p class="muted">Leave the text empty to clear your status.</p>
        <button type="submit">Save status</button>
      </form>
    </Modal>
  )
}
