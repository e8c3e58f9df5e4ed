import { localPath, query } from "../app/router.ts"
import { signOut } from "../app/session.ts"
import { MfaEnrolment } from "./MfaEnrolment.tsx"

/**
 * /mfa/setup (loaded on demand): the server enforces two-factor authentication and this account has none, so it is
 * all the app offers until it is set up (as Mattermost's page of the same address). After activation a full load
 * brings the app up at the address the person was going to; Log out leaves instead.
 */
export const MfaRequired = () => {
  const next = localPath(query().get("redirect_to"))
  return (
    <main class="auth">
      <div class="card">
        <p class="brand" aria-hidden="true">Team Chat</p>
        <h1>Multi-factor authentication is required</h1>
        <p>This server requires two-factor authentication: set it up to continue. You need an authenticator app on your phone, such as Google Authenticator or FreeOTP.</p>
        <MfaEnrolment action="Activate" onActivated={() => location.assign(next)} />
        <p class="leave row">Not now?<button type="button" class="secondary" onClick={() => void signOut()}>Log out</button></p>
      </div>
    </main>
  )
}

export default MfaRequired
