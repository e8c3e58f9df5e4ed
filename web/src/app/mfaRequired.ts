import { signal } from "@preact/signals"
import { client } from "./api.ts"

/**
 * ServiceSettings.EnforceMultifactorAuthentication: a password account without a second factor may only read itself
 * and set one up; every other call answers 403 with this id. The app then shows the set-up page instead of the
 * chat (main.tsx), as Mattermost's web app sends such a person to /mfa/setup.
 */
export const MFA_REQUIRED = "api.context.mfa_required.app_error"

/** Set when the server requires this person to set up two-factor authentication before anything else. */
export const mfaRequired = signal(false)

/** Whether the server will refuse this account until it has a second factor (SSO accounts have theirs at the provider). */
export const needsMfa = (user: { mfa_active?: boolean; auth_service?: string }, settings: Record<string, string>) =>
  settings.EnforceMultifactorAuthentication === "true" && !user.mfa_active && (!user.auth_service || user.auth_service === "email")

// Any call may be the first to learn it (enforcement switched on while this person was signed in): every Client4
// request goes through doFetchWithResponse, so one wrapper notices the id wherever it comes from.
// (It is private in Client4's types, hence the cast.)
const raw = client as unknown as { doFetchWithResponse: (url: string, options: unknown) => Promise<unknown> }
const fetchWithResponse = raw.doFetchWithResponse
raw.doFetchWithResponse = async (url, options) => {
  try {
    return await fetchWithResponse(url, options)
  } catch (e) {
    if ((e as { server_error_id?: string }).server_error_id === MFA_REQUIRED) mfaRequired.value = true
    throw e
  }
}
