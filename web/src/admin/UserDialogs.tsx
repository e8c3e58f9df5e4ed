import { useState } from "preact/hooks"
import { errorMessage } from "../app/api.ts"
import { api, notice } from "./state.ts"
import { ConsoleDialog } from "./ui.tsx"

/** Mattermost's username rule: 3 to 22 characters, a lowercase letter first, then letters, digits, ".", "-" or "_". */
const USERNAME = "[a-z][a-z0-9._\\-]{2,21}"

const FormError = ({ error }: { error: string }) => (error ? <p role="alert" class="alert">{error}</p> : null)

/** Create user (POST /api/v4/users as an admin: allowed whatever the sign-up settings say). */
export const CreateUser = ({ onClose, onCreated }: { onClose: () => void; onCreated: (id: string) => void }) => {
  const [error, setError] = useState("")
  const submit = async (e: Event) => {
    e.preventDefault()
    const form = e.currentTarget as HTMLFormElement
    if (!form.reportValidity()) return
    const d = new FormData(form)
    try {
      const user = await api<{ id: string; username: string }>("POST", "/api/v4/users", {
        username: String(d.get("username")).trim(), email: String(d.get("email")).trim(), password: d.get("password"),
        first_name: String(d.get("first_name") ?? "").trim(), last_name: String(d.get("last_name") ?? "").trim()
      })
      notice.value = `${user.username} created`
      onCreated(user.id)
    } catch (err) {
      setError(errorMessage(err))
    }
  }
  return (
    <ConsoleDialog title="Create user" onClose={onClose}>
      <form onSubmit={submit}>
        <FormError error={error} />
        <label>Username<input name="username" required pattern={USERNAME} autocomplete="off" aria-describedby="username-help" /></label>
        <p id="username-help" class="help muted">3 to 22 characters: a lowercase letter, then lowercase letters, digits, ".", "-" or "_".</p>
        <label>Email<input name="email" type="email" required autocomplete="off" /></label>
        <label>First name<input name="first_name" autocomplete="off" /></label>
        <label>Last name<input name="last_name" autocomplete="off" /></label>
        <label>Password<input name="password" type="password" required minLength={8} maxLength={72} autocomplete="new-password" aria-describedby="password-help" /></label>
        <p id="password-help" class="help muted">At least 8 characters; not a common password, not containing the username or email.</p>
        <div class="row dialog-actions"><button type="submit">Create user</button><button type="button" class="secondary" onClick={onClose}>Cancel</button></div>
      </form>
    </ConsoleDialog>
  )
}

/** Set a user's password (PUT /users/{id}/password; an admin needs no current password). Their other sessions end. */
export const SetPassword = ({ user, onClose, onDone }: { user: { id: string; username: string }; onClose: () => void; onDone: () => void }) => {
  const [error, setError] = useState("")
  const submit = async (e: Event) => {
    e.preventDefault()
    const form = e.currentTarget as HTMLFormElement
    if (!form.reportValidity()) return
    const d = new FormData(form)
    if (d.get("password") !== d.get("again")) {
      setError("The two passwords differ.")
      return
    }
    try {
      await api("PUT", `/api/v4/users/${user.id}/password`, { new_password: d.get("password") })
      notice.value = `Password of ${user.username} set`
      onDone()
    } catch (err) {
      setError(errorMessage(err))
    }
  }
  return (
    <ConsoleDialog title={`Set the password of ${user.username}`} onClose={onClose}>
      <form onSubmit={submit}>
        <FormError error={error} />
        <label>New password<input name="password" type="password" required minLength={8} maxLength={72} autocomplete="new-password" /></label>
        <label>Repeat the new password<input name="again" type="password" required autocomplete="new-password" /></label>
        <div class="row dialog-actions"><button type="submit">Set password</button><button type="button" class="secondary" onClick={onClose}>Cancel</button></div>
      </form>
    </ConsoleDialog>
  )
}
