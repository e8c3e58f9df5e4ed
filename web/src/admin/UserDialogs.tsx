import { api, notice } from "./state.ts"
import { ConsoleDialog, FormError, useFormSubmit } from "./ui.tsx"

/** Mattermost's username rule: 3 to 22 characters, a lowercase letter first, then letters, digits, ".", "-" or "_". */
const USERNAME = "[a-z][a-z0-9._\\-]{2,21}"

/** Create user (POST /api/v4/users as an admin: allowed whatever the sign-up settings say). */
export const CreateUser = ({ onClose, onCreated }: { onClose: () => void; onCreated: (id: string) => void }) => {
  const { error, submit } = useFormSubmit(async (text, d) => {
    const user = await api<{ id: string; username: string }>("POST", "/api/v4/users", {
      username: text("username"), email: text("email"), password: d.get("password"),
      first_name: text("first_name"), last_name: text("last_name")
    })
    notice.value = `${user.username} created`
    onCreated(user.id)
  })
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
  const { error, setError, submit } = useFormSubmit(async (_, d) => {
    if (d.get("password") !== d.get("again")) {
      setError("The two passwords differ.")
      return
    }
    await api("PUT", `/api/v4/users/${user.id}/password`, { new_password: d.get("password") })
    notice.value = `Password of ${user.username} set`
    onDone()
  })
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
