import { useEffect, useState } from "preact/hooks"
import { client, errorMessage, v1 } from "../app/api.ts"
import { link, localPath, navigate, query } from "../app/router.ts"
import { mfaRequired } from "../app/mfaRequired.ts"
import { home, NOTICE_KEY, signedIn } from "../app/session.ts"
import { config, me, teams } from "../app/state.ts"

interface Provider {
  readonly id: string
  readonly display_name: string
  readonly login_url: string
}

/** The server's error ids for a sign-in that needs a second factor, and for a wrong or spent code. */
const MFA_NEEDED = "mfa.validate_token.authenticate.app_error"
const MFA_WRONG = "api.user.check_user_mfa.bad_code.app_error"

const Alert = ({ text }: { text: string }) => (text ? <p class="alert" role="alert">{text}</p> : null)

const Card = ({ title, children }: { title: string; children: any }) => (
  <main class="auth">
    <div class="card">
      <p class="brand" aria-hidden="true">Team Chat</p>
      <h1>{title}</h1>
      {children}
    </div>
  </main>
)

/** /login: password sign-in, SSO buttons, and the end of the SSO flow (?code= exchanged for the session cookie). */
export const Login = () => {
  const q = query()
  const next = localPath(q.get("redirect_to"))
  const [error, setError] = useState(q.get("error") ?? "")
  const [providers, setProviders] = useState<Array<Provider>>([])
  const [busy, setBusy] = useState(false)
  // Set by the reset page on its way here; read once, so that a reload does not repeat it.
  const [notice] = useState(() => {
    const text = sessionStorage.getItem(NOTICE_KEY) ?? ""
    sessionStorage.removeItem(NOTICE_KEY)
    return text
  })
  const passwordAllowed = config.value.EnableSignInWithEmail !== "false" || config.value.EnableSignInWithUsername !== "false"

  useEffect(() => {
    const code = q.get("code")
    if (code) {
      // The code is single-use and must not stay in the address bar or history.
      history.replaceState(null, "", "/login")
      setBusy(true)
      v1<{ redirect_uri?: string }>("POST", "/api/v1/oauth2/exchange", { code })
        .then(async (body) => {
          await signedIn()
          navigate(localPath(body?.redirect_uri), true)
          if (localPath(body?.redirect_uri) === "/") home()
        })
        .catch((e) => setError(errorMessage(e, "Sign-in failed")))
        .finally(() => setBusy(false))
    }
    v1<Array<Provider>>("GET", "/api/v1/oauth2/providers").then(setProviders, () => setProviders([]))
  }, [])

  // The password was right and the account has two-factor authentication: the same sign-in again with a code.
  const [mfa, setMfa] = useState<{ loginId: string; password: string } | null>(null)
  const signIn = async (loginId: string, password: string, code?: string) => {
    setBusy(true)
    setError("")
    try {
      await client.login(loginId, password, code)
      await signedIn()
      if (mfaRequired.value) navigate(`/mfa/setup?redirect_to=${encodeURIComponent(next)}`, true)
      else if (next !== "/") navigate(next, true)
      else home()
    } catch (e) {
      const id = (e as { server_error_id?: string }).server_error_id
      if (id === MFA_NEEDED && !code) setMfa({ loginId, password })
      else setError(id === MFA_NEEDED || id === MFA_WRONG ? "That code is not right (or was already used): enter the current code from your authenticator app." : errorMessage(e, "Sign-in failed"))
    } finally {
      setBusy(false)
    }
  }
  const submit = (event: Event) => {
    event.preventDefault()
    const data = new FormData(event.currentTarget as HTMLFormElement)
    void signIn(String(data.get("login_id")), String(data.get("password")))
  }

  if (mfa) {
    return (
      <Card title="Enter your authentication code">
        <Alert text={error} />
        <form onSubmit={(e) => {
          e.preventDefault()
          void signIn(mfa.loginId, mfa.password, String(new FormData(e.currentTarget).get("code")).replace(/\s+/g, ""))
        }}>
          <p id="mfa-help" class="muted">Open the authenticator app on your phone and enter the six-digit code it shows for this server.</p>
          <label>Authentication code
            <input name="code" inputMode="numeric" autocomplete="one-time-code" pattern="[0-9 ]{6,7}" maxLength={7} required autoFocus aria-describedby="mfa-help" ref={(el) => el?.focus()} />
          </label>
          <div class="row">
            <button type="submit" disabled={busy}>Verify</button>
            <button type="button" class="secondary" onClick={() => { setMfa(null); setError("") }}>Back</button>
          </div>
        </form>
      </Card>
    )
  }

  return (
    <Card title="Sign in">
      {notice && !error && <p class="notice" role="status">{notice}</p>}
      <Alert text={error} />
      {providers.length > 0 && (
        <ul class="providers" aria-label="Single sign-on">
          {providers.map((p) => (
            <li key={p.id}>
              <a class="button secondary" href={`${p.login_url}?redirect_uri=${encodeURIComponent(next)}`}>Sign in with {p.display_name}</a>
            </li>
          ))}
        </ul>
      )}
      {passwordAllowed ? (
        <form onSubmit={submit}>
          <label>Email or username<input name="login_id" autocomplete="username" required /></label>
          <label>Password<input name="password" type="password" autocomplete="current-password" required /></label>
          <button type="submit" disabled={busy}>Sign in</button>
        </form>
      ) : (
        <p>This server requires single sign-on.</p>
      )}
      {passwordAllowed && config.value.PasswordEnableForgotLink === "true" && (
        <p class="muted">{config.value.ForgotPasswordLink
          ? <a href={config.value.ForgotPasswordLink}>Forgot your password?</a>
          : <a href="/reset_password" onClick={link("/reset_password")}>Forgot your password?</a>}</p>
      )}
      {passwordAllowed && config.value.EnableUserCreation !== "false" && (
        <p class="muted">No account yet? <a href="/signup_user_complete" onClick={link("/signup_user_complete")}>Create an account</a></p>
      )}
    </Card>
  )
}

/** /signup_user_complete[?id=<invite id>]: a new account, joined to the invited team when there is one. */
export const Signup = () => {
  const inviteId = query().get("id") ?? ""
  const [error, setError] = useState("")
  const [busy, setBusy] = useState(false)
  const [team, setTeam] = useState<{ display_name: string; name: string } | null>(null)
  const first = config.value.NoAccounts === "true"

  useEffect(() => {
    if (inviteId) client.getTeamInviteInfo(inviteId).then((t) => setTeam(t as any), () => setTeam(null))
  }, [inviteId])

  const submit = async (event: Event) => {
    event.preventDefault()
    const data = new FormData(event.currentTarget as HTMLFormElement)
    setBusy(true)
    setError("")
    try {
      const user = { email: String(data.get("email")), username: String(data.get("username")).toLowerCase(), password: String(data.get("password")) }
      await client.createUser(user as any, "", inviteId)
      await client.login(user.username, user.password)
      await signedIn()
      if (inviteId && teams.value.length === 0) {
        await client.addToTeamFromInvite("", inviteId).catch(() => undefined)
        await signedIn()
      }
      const invited = team && teams.value.find((t) => t.name === team.name)
      navigate(invited ? `/${invited.name}/channels/town-square` : teams.value.length ? `/${teams.value[0].name}/channels/town-square` : "/create_team", true)
    } catch (e) {
      setError(errorMessage(e, "The account could not be created"))
    } finally {
      setBusy(false)
    }
  }

  return (
    <Card title={team ? `Join ${team.display_name}` : "Create your account"}>
      {first && <p>Welcome! This server has no accounts yet: the first account administers it.</p>}
      <Alert text={error} />
      <form onSubmit={submit}>
        <label>Email<input name="email" type="email" autocomplete="email" required /></label>
        <label>Username<input name="username" autocomplete="username" required pattern="[A-Za-z0-9._\-]{3,22}" title="3 to 22 letters, digits, dots, dashes or underscores" /></label>
        <label>Password<input name="password" type="password" autocomplete="new-password" required minLength={Number(config.value.PasswordMinimumLength || 8)} /></label>
        <button type="submit" disabled={busy}>Create account</button>
      </form>
      <p class="muted">Already have an account? <a href="/login" onClick={link("/login")}>Sign in</a></p>
    </Card>
  )
}

const slug = (s: string) => s.toLowerCase().normalize("NFKD").replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 60)

/** /create_team: the first team (or another one). */
export const CreateTeam = () => {
  const [error, setError] = useState("")
  const [busy, setBusy] = useState(false)
  const submit = async (event: Event) => {
    event.preventDefault()
    const data = new FormData(event.currentTarget as HTMLFormElement)
    const displayName = String(data.get("display_name")).trim()
    let name = slug(String(data.get("name") || displayName))
    if (name.length < 2) name = `team-${name}`
    setBusy(true)
    setError("")
    try {
      const team = await client.createTeam({ name, display_name: displayName, type: "O" } as any)
      teams.value = [...teams.value, team]
      navigate(`/${team.name}/channels/town-square`, true)
    } catch (e) {
      setError(errorMessage(e, "The team could not be created"))
    } finally {
      setBusy(false)
    }
  }
  return (
    <Card title="Create a team">
      <Alert text={error} />
      <form onSubmit={submit}>
        <label>Team name<input name="display_name" required maxLength={64} /></label>
        <label>Team URL (optional)<input name="name" pattern="[a-z0-9\-]*" maxLength={64} /></label>
        <button type="submit" disabled={busy}>Create team</button>
      </form>
      {teams.value.length > 0 && <p class="muted"><a href="/" onClick={link("/")}>Back</a></p>}
    </Card>
  )
}

/** /reset_password: asks for a reset link by email (shown only when the server's config offers password reset). */
export const ResetRequest = () => {
  const [sent, setSent] = useState(false)
  const [error, setError] = useState("")
  const submit = async (event: Event) => {
    event.preventDefault()
    const data = new FormData(event.currentTarget as HTMLFormElement)
    setError("")
    try {
      await client.sendPasswordResetEmail(String(data.get("email")))
      setSent(true)
    } catch (e) {
      setError(errorMessage(e, "The reset link could not be sent"))
    }
  }
  return (
    <Card title="Reset your password">
      <Alert text={error} />
      {sent ? <p role="status">If an account uses that address, a link to choose a new password is on its way.</p> : (
        <form onSubmit={submit}>
          <label>Email<input name="email" type="email" autocomplete="email" required /></label>
          <button type="submit">Send reset link</button>
        </form>
      )}
      <p class="muted"><a href="/login" onClick={link("/login")}>Back to sign in</a></p>
    </Card>
  )
}

/**
 * The server's "this link is spent or unknown" errors (reset and verification links) in words that say what to do; any
 * other error (a weak password, say) is shown as the server wrote it.
 */
const SPENT_LINK = new Set(["api.user.reset_password.invalid_link.app_error", "api.user.verify_email.bad_link.app_error"])
const errorId = (e: unknown) => (e && typeof e === "object" && "server_error_id" in e ? String((e as { server_error_id: unknown }).server_error_id) : "")
const linkError = (e: unknown, fallback: string) => {
  const id = errorId(e)
  if (SPENT_LINK.has(id)) return "This link has already been used or is no longer valid."
  if (id === "api.user.reset_password.link_expired.app_error") return "This link has expired."
  return errorMessage(e, fallback)
}

/** Takes the one-time token from the address bar (and the history) as the page opens. */
const useLinkToken = (path: string) => {
  const [token] = useState(() => query().get("token") ?? "")
  useEffect(() => {
    if (token) history.replaceState(null, "", path)
  }, [])
  return token
}

/** /reset_password_complete?token=…: the link from the email. */
export const ResetComplete = () => {
  const token = useLinkToken("/reset_password_complete")
  const [error, setError] = useState(token ? "" : "This reset link is incomplete.")
  const [spent, setSpent] = useState(!token)
  const [busy, setBusy] = useState(false)
  const submit = async (event: Event) => {
    event.preventDefault()
    const data = new FormData(event.currentTarget as HTMLFormElement)
    setError("")
    setBusy(true)
    try {
      await client.resetUserPassword(token, String(data.get("password")))
      sessionStorage.setItem(NOTICE_KEY, "Your password has been changed: sign in with the new one.")
      navigate("/login", true)
    } catch (e) {
      const id = errorId(e)
      // A weak password leaves the link usable; a spent, unknown or expired link does not.
      setSpent(id.startsWith("api.user.reset_password."))
      setError(linkError(e, "The password could not be changed"))
    } finally {
      setBusy(false)
    }
  }
  return (
    <Card title="Choose a new password">
      <Alert text={error} />
      {spent ? (
        <p><a href="/reset_password" onClick={link("/reset_password")}>Ask for a new link</a></p>
      ) : (
        <form onSubmit={submit}>
          <label>New password<input name="password" type="password" autocomplete="new-password" required minLength={Number(config.value.PasswordMinimumLength || 8)} /></label>
          <button type="submit" disabled={busy}>Change password</button>
        </form>
      )}
      <p class="muted"><a href="/login" onClick={link("/login")}>Back to sign in</a></p>
    </Card>
  )
}

/** /do_verify_email?token=…&email=…: the verification link from the email; signed in or not, it spends the token. */
export const VerifyEmail = () => {
  const token = useLinkToken("/do_verify_email")
  const [state, setState] = useState<"busy" | "done" | "failed">(token ? "busy" : "failed")
  const [error, setError] = useState(token ? "" : "This verification link is incomplete.")
  useEffect(() => {
    if (!token) return
    client.verifyUserEmail(token).then(
      () => setState("done"),
      (e) => {
        setError(linkError(e, "The address could not be verified"))
        setState("failed")
      }
    )
  }, [])
  const onward = me.value ? <a href="/" onClick={link("/")}>Continue</a> : <a href="/login" onClick={link("/login")}>Sign in</a>
  if (state === "busy") return <Card title="Verifying your email"><p role="status">Checking the link…</p></Card>
  return state === "done" ? (
    <Card title="Email verified">
      <p role="status">Your email address is verified.</p>
      <p>{onward}</p>
    </Card>
  ) : (
    <Card title="Email not verified">
      <Alert text={error} />
      <p>{onward}</p>
    </Card>
  )
}
