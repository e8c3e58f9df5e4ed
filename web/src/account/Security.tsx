import type { Session } from "@mattermost/types/sessions"
import type { UserAccessToken } from "@mattermost/types/users"
import { useEffect, useState } from "preact/hooks"
import { client, errorMessage } from "../app/api.ts"
import { isCurrentSession } from "../app/session.ts"
import { config, me } from "../app/state.ts"
import { Confirm } from "../ui/Confirm.tsx"
import { Modal } from "../ui/Modal.tsx"
import { MfaEnrolment } from "./MfaEnrolment.tsx"

/**
 * Security settings (loaded on demand): password, two-factor authentication, the sessions signed in to this account,
 * and personal access tokens where the server allows them. Each section says what happened in its own status line.
 */

const Status = ({ ok, error }: { ok: string; error: string }) => (
  <>
    {ok && <p role="status">{ok}</p>}
    {error && <p class="alert" role="alert">{error}</p>}
  </>
)

const stamp = new Intl.DateTimeFormat([], { dateStyle: "medium", timeStyle: "short" })
const when = (at: number) => (at > 0 ? stamp.format(at) : "never")

const Password = () => {
  const [ok, setOk] = useState("")
  const [error, setError] = useState("")
  const submit = async (e: Event) => {
    e.preventDefault()
    const form = e.currentTarget as HTMLFormElement
    const data = new FormData(form)
    try {
      await client.updateUserPassword(me.value!.id, String(data.get("current")), String(data.get("next")))
      form.reset()
      setOk("Password changed: your other sessions were signed out")
      setError("")
    } catch (err) {
      setOk("")
      setError(errorMessage(err))
    }
  }
  return (
    <section aria-labelledby="sec-password">
      <h3 id="sec-password">Password</h3>
      <form onSubmit={submit}>
        <label>Current password<input name="current" type="password" autocomplete="current-password" required /></label>
        <label>New password<input name="next" type="password" autocomplete="new-password" required minLength={8} /></label>
        <button type="submit">Change password</button>
      </form>
      <Status ok={ok} error={error} />
    </section>
  )
}

/** Two-factor authentication (TOTP): set up with MfaEnrolment (a secret, turned on by a first code); turned off. */
const TwoFactor = () => {
  const user = me.value!
  const [enrolling, setEnrolling] = useState(false)
  const [ok, setOk] = useState("")
  const [error, setError] = useState("")
  const [confirmOff, setConfirmOff] = useState(false)
  if (config.value.EnableMultifactorAuthentication !== "true") return null
  if (user.auth_service) {
    return (
      <section aria-labelledby="sec-mfa">
        <h3 id="sec-mfa">Two-factor authentication</h3>
        <p class="muted">You sign in with single sign-on: two-factor authentication is set up at your identity provider.</p>
      </section>
    )
  }
  const deactivate = async () => {
    setConfirmOff(false)
    try {
      await client.updateUserMfa(user.id, false, "")
      me.value = { ...user, mfa_active: false }
      setError("")
      setOk("Two-factor authentication is off")
    } catch (err) {
      setError(errorMessage(err))
    }
  }
  return (
    <section aria-labelledby="sec-mfa">
      <h3 id="sec-mfa">Two-factor authentication</h3>
      {user.mfa_active ? (
        <>
          <p>On: signing in asks for a code from your authenticator app.</p>
          {confirmOff
            ? <Confirm id="mfa-off" title="Turn off two-factor authentication" text="Signing in will ask for your password only." action="Turn off" onConfirm={() => void deactivate()} onCancel={() => setConfirmOff(false)} />
            : <button type="button" class="danger" onClick={() => setConfirmOff(true)}>Turn off two-factor authentication</button>}
        </>
      ) : enrolling ? (
        <MfaEnrolment action="Turn on" onCancel={() => setEnrolling(false)} onActivated={() => {
          setEnrolling(false)
          setError("")
          setOk("Two-factor authentication is on: signing in now asks for a code from your app")
        }} />
      ) : (
        <>
          <p class="muted">Off. With it on, signing in also asks for a code from an app on your phone.</p>
          <button type="button" onClick={() => { setOk(""); setError(""); setEnrolling(true) }}>Set up two-factor authentication</button>
        </>
      )}
      <Status ok={ok} error={error} />
    </section>
  )
}

const describe = (s: Session) => {
  if (s.props?.type === "UserAccessToken") return "Personal access token"
  const known = (v: unknown) => (typeof v === "string" && v !== "" && v !== "Unknown" ? v : undefined)
  const browser = known(s.props?.browser)
  const os = known(s.props?.os) ?? known(s.props?.platform)
  if (browser) return os ? `${browser} on ${os}` : browser
  return s.device_id ? "Mobile app" : os ? `Unknown browser on ${os}` : "Unknown device"
}

/**
 * The sessions signed in to this account (this browser's marked), each with Sign out, and "Sign out all other
 * sessions" after a confirmation. Mattermost's revoke/all would end this session too: the others are revoked one by
 * one instead, never this browser's (nor any when this browser's cannot be told).
 */
const Sessions = () => {
  const [list, setList] = useState<Array<Session> | null>(null)
  const [ok, setOk] = useState("")
  const [error, setError] = useState("")
  const [confirming, setConfirming] = useState(false)
  const load = () => client.getSessions(me.value!.id).then(setList, (err) => setError(errorMessage(err)))
  useEffect(() => void load(), [])
  const others = (list ?? []).filter((s) => !isCurrentSession(s))
  const knowsCurrent = (list ?? []).some(isCurrentSession)
  const revoke = async (s: Session) => {
    try {
      await client.revokeSession(me.value!.id, s.id)
      setOk(`Signed out: ${describe(s)}`)
      setError("")
      await load()
    } catch (err) {
      setError(errorMessage(err))
    }
  }
  const revokeOthers = async () => {
    setConfirming(false)
    const failed = (await Promise.allSettled(others.map((s) => client.revokeSession(me.value!.id, s.id)))).filter((r) => r.status === "rejected")
    if (failed.length > 0) setError(`${failed.length} session${failed.length === 1 ? "" : "s"} could not be signed out`)
    else {
      setError("")
      setOk(`Signed out of ${others.length} other session${others.length === 1 ? "" : "s"}`)
    }
    await load()
  }
  return (
    <section aria-labelledby="sec-sessions">
      <h3 id="sec-sessions">Active sessions</h3>
      {list === null && !error && <p class="muted">Loading…</p>}
      <ul class="list sessions" aria-labelledby="sec-sessions">
        {list?.map((s) => {
          const current = isCurrentSession(s)
          return (
            <li key={s.id}>
              <span>
                <strong>{describe(s)}</strong>{current && <span class="tag">This browser</span>}
                <br /><span class="muted">Signed in {when(s.create_at)} · last active {when(s.last_activity_at)}</span>
              </span>
              {!current && <button type="button" class="secondary" aria-label={`Sign out ${describe(s)}, signed in ${when(s.create_at)}`} onClick={() => void revoke(s)}>Sign out</button>}
            </li>
          )
        })}
      </ul>
      {knowsCurrent && others.length > 0 && !confirming && (
        <button type="button" class="secondary" onClick={() => setConfirming(true)}>Sign out all other sessions</button>
      )}
      {confirming && (
        <Confirm id="sessions" title="Sign out all other sessions"
          text={`Sign out ${others.length} other session${others.length === 1 ? "" : "s"}? This browser stays signed in.`}
          action="Sign them out" onConfirm={() => void revokeOthers()} onCancel={() => setConfirming(false)} />
      )}
      <Status ok={ok} error={error} />
    </section>
  )
}

/**
 * Personal access tokens, when the server allows them and this person may make them (the list answers 403
 * otherwise). A new token is shown once, with Copy; the list shows descriptions and ids only.
 */
const Tokens = () => {
  const [list, setList] = useState<Array<UserAccessToken> | null>(null)
  const [allowed, setAllowed] = useState(true)
  const [created, setCreated] = useState<UserAccessToken | null>(null)
  const [ok, setOk] = useState("")
  const [error, setError] = useState("")
  const load = () =>
    client.getUserAccessTokensForUser(me.value!.id, 0, 100).then(setList, (err) => {
      if ((err as { status_code?: number }).status_code === 403 || (err as { status_code?: number }).status_code === 501) setAllowed(false)
      else setError(errorMessage(err))
    })
  useEffect(() => {
    if (config.value.EnableUserAccessTokens === "true") void load()
  }, [])
  if (config.value.EnableUserAccessTokens !== "true" || !allowed) return null
  const create = async (e: Event) => {
    e.preventDefault()
    const form = e.currentTarget as HTMLFormElement
    try {
      setCreated(await client.createUserAccessToken(me.value!.id, String(new FormData(form).get("description")).trim()))
      form.reset()
      setOk("")
      setError("")
      await load()
    } catch (err) {
      setError(errorMessage(err))
    }
  }
  const revoke = async (t: UserAccessToken) => {
    try {
      await client.revokeUserAccessToken(t.id)
      if (created?.id === t.id) setCreated(null)
      setOk(`Token “${t.description}” revoked`)
      setError("")
      await load()
    } catch (err) {
      setError(errorMessage(err))
    }
  }
  const copy = () =>
    navigator.clipboard.writeText(created?.token ?? "").then(() => setOk("Token copied"), () => setError("Copying failed: select the token and copy it"))
  return (
    <section aria-labelledby="sec-tokens">
      <h3 id="sec-tokens">Personal access tokens</h3>
      <p class="muted">A token signs in scripts and integrations as you. Treat it like a password.</p>
      <form onSubmit={create} class="row inline-form">
        <label>Token description<input name="description" required maxLength={255} /></label>
        <button type="submit">Create token</button>
      </form>
      {created && (
        <div class="callout" role="group" aria-label="New token">
          <p><strong>Copy this token now: it is not shown again.</strong></p>
          <label>New token value<input class="secret" readOnly value={created.token} onFocus={(e) => e.currentTarget.select()} /></label>
          <div class="row">
            <button type="button" onClick={() => void copy()}>Copy</button>
            <button type="button" class="secondary" onClick={() => setCreated(null)}>Done</button>
          </div>
        </div>
      )}
      {list && list.length === 0 && <p class="muted">No tokens yet.</p>}
      <ul class="list" aria-label="Your tokens">
        {list?.map((t) => (
          <li key={t.id}>
            <span><strong>{t.description}</strong>{!t.is_active && <span class="tag">disabled</span>}<br /><span class="muted">Token id {t.id}</span></span>
            <button type="button" class="danger" aria-label={`Revoke ${t.description}`} onClick={() => void revoke(t)}>Revoke</button>
          </li>
        ))}
      </ul>
      <Status ok={ok} error={error} />
    </section>
  )
}

export const Security = () => (
  <Modal title="Security">
    <div class="sections">
      <Password />
      <TwoFactor />
      <Sessions />
      <Tokens />
    </div>
  </Modal>
)

export default Security
