import { useEffect, useRef, useState } from "preact/hooks"
import { client, errorMessage } from "../app/api.ts"
import { me } from "../app/state.ts"

/**
 * Setting up two-factor authentication (TOTP), shared by the Security dialog and the page a server that requires it
 * shows: a new secret as a QR code and as text, turned on by a first code from the app. The secret is asked for on
 * mount; `me` is marked mfa_active once the server accepts the code.
 */
export const MfaEnrolment = ({ action, onActivated, onCancel }: { action: string; onActivated: () => void; onCancel?: () => void }) => {
  const user = me.value!
  const [secret, setSecret] = useState<{ secret: string; qr_code: string } | null>(null)
  const [error, setError] = useState("")
  const [busy, setBusy] = useState(false)
  const code = useRef<HTMLInputElement>(null)
  useEffect(() => {
    client.generateMfaSecret(user.id).then(setSecret, (err) => setError(errorMessage(err)))
  }, [])
  // Once the key is there, the code field is the next thing to fill in.
  useEffect(() => code.current?.focus(), [secret !== null])
  const activate = async (e: Event) => {
    e.preventDefault()
    const value = String(new FormData(e.currentTarget as HTMLFormElement).get("code")).replace(/\s+/g, "")
    setBusy(true)
    try {
      await client.updateUserMfa(user.id, true, value)
      me.value = { ...user, mfa_active: true }
      setError("")
      onActivated()
    } catch (err) {
      setError(errorMessage(err))
      code.current?.select()
    } finally {
      setBusy(false)
    }
  }
  return (
    <form onSubmit={activate} class="mfa-enrolment">
      <p>Scan this code with an authenticator app (or type the key below into it), then enter the six-digit code it shows.</p>
      {secret
        ? <img class="qr" src={`data:image/png;base64,${secret.qr_code}`} width={192} height={192} alt="QR code of your two-factor authentication key" />
        : !error && <p class="muted" role="status">Preparing your key…</p>}
      {secret && <label>Two-factor key<input class="secret" readOnly value={secret.secret} onFocus={(e) => e.currentTarget.select()} /></label>}
      <label>Code from your app<input ref={code} name="code" inputMode="numeric" autocomplete="one-time-code" pattern="[0-9 ]{6,7}" maxLength={7} required /></label>
      <div class="row">
        <button type="submit" disabled={!secret || busy}>{action}</button>
        {onCancel && <button type="button" class="secondary" onClick={onCancel}>Cancel</button>}
      </div>
      {error && <p class="alert" role="alert">{error}</p>}
    </form>
  )
}
