import { render } from "preact"
import { lazy, Suspense } from "preact/compat"
import { useEffect, useState } from "preact/hooks"
import { CreateTeam, Login, ResetComplete, ResetRequest, Signup, VerifyEmail } from "./account/Auth.tsx"
import { localPath, location$, navigate, path, query } from "./app/router.ts"
import { mfaRequired } from "./app/mfaRequired.ts"
import { boot, home } from "./app/session.ts"
import { config, isAdmin, me, teams } from "./app/state.ts"
import "./app/styles.css"
import { startAttention } from "./notifications/events.ts"
import { Permalink } from "./posts/Permalink.tsx"
import { Chat } from "./shell/Chat.tsx"

const Admin = lazy(() => import("./admin/Admin.tsx"))
const Integrations = lazy(() => import("./integrations/Integrations.tsx"))
const MfaRequired = lazy(() => import("./account/MfaRequired.tsx"))

// The tab title and favicon carry the unread and mention marks, as in Mattermost (notifications/badge.ts).
startAttention()

const PUBLIC = ["/login", "/signup_user_complete", "/signup_email", "/reset_password", "/reset_password_complete"]

const App = () => {
  const [ready, setReady] = useState(false)
  useEffect(() => {
    boot().finally(() => setReady(true))
  }, [])
  void location$.value
  if (!ready) return <p class="muted center" role="status">Loading…</p>
  const p = path()
  const user = me.value
  // The verification link works the same signed in or not (it spends its token either way).
  if (p === "/do_verify_email") return <VerifyEmail />
  if (!user) {
    if (p === "/login") return <Login />
    if (p === "/signup_user_complete" || p === "/signup_email") return <Signup />
    if (p === "/reset_password") return <ResetRequest />
    if (p === "/reset_password_complete") return <ResetComplete />
    // An empty server offers the first visitor sign-up (that account administers the server).
    const first = config.value.NoAccounts === "true"
    queueMicrotask(() => navigate(first ? "/signup_user_complete" : p === "/" ? "/login" : `/login?redirect_to=${encodeURIComponent(location$.value)}`, true))
    return null
  }
  // The server enforces two-factor authentication and this account has none: nothing else would load, so the set-up
  // page is all there is until it is done (it comes back to where the person was going).
  if (mfaRequired.value) {
    if (p !== "/mfa/setup") {
      const to = PUBLIC.includes(p) ? localPath(query().get("redirect_to")) : location$.value
      queueMicrotask(() => navigate(`/mfa/setup?redirect_to=${encodeURIComponent(to)}`, true))
      return null
    }
    return <Suspense fallback={<p class="muted center" role="status">Loading…</p>}><MfaRequired /></Suspense>
  }
  if (p === "/mfa/setup") {
    queueMicrotask(home)
    return null
  }
  if (PUBLIC.includes(p)) {
    const invite = query().get("id")
    if (p === "/signup_user_complete" && invite) return <Signup />
    queueMicrotask(home)
    return null
  }
  if (p === "/" || p === "/select_team") {
    queueMicrotask(home)
    return null
  }
  if (p === "/create_team") return <CreateTeam />
  if (p.startsWith("/admin_console")) {
    if (!isAdmin.value) return <main class="auth"><div class="card"><h1>Not allowed</h1><p>Only system administrators can open the system console.</p></div></main>
    return <Suspense fallback={<p class="muted center">Loading…</p>}><Admin /></Suspense>
  }
  const parts = p.split("/").filter(Boolean).map(decodeURIComponent)
  if (parts.length === 3 && parts[1] === "pl") return <Permalink teamName={parts[0]} postId={parts[2]} />
  if (parts.length >= 2 && parts[1] === "integrations" && teams.value.some((t) => t.name === parts[0])) {
    return <Suspense fallback={<p class="muted center">Loading…</p>}><Integrations teamName={parts[0]} rest={parts.slice(2)} /></Suspense>
  }
  if (parts.length === 2 && parts[1] === "threads") return <Chat teamName={parts[0]} threadsView />
  if (parts.length >= 3 && parts[1] === "channels") return <Chat teamName={parts[0]} channelName={parts[2]} />
  if (parts.length >= 3 && parts[1] === "messages") {
    return parts[2].startsWith("@") ? <Chat teamName={parts[0]} dmUser={parts[2].slice(1)} /> : <Chat teamName={parts[0]} channelName={parts[2]} />
  }
  if (parts.length === 1 && teams.value.some((t) => t.name === parts[0])) {
    queueMicrotask(() => navigate(`/${parts[0]}/channels/town-square`, true))
    return null
  }
  return (
    <main class="auth"><div class="card"><h1>Page not found</h1><p>There is nothing at this address.</p>
      <a href="/" onClick={(e) => { e.preventDefault(); navigate("/") }}>Go home</a></div></main>
  )
}

render(<App />, document.getElementById("app")!)
