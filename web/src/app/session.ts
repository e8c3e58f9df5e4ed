import { effect } from "@preact/signals"
import { client, cookie } from "./api.ts"
import { navigate } from "./router.ts"
import { applyDisplay } from "../account/preferences.ts"
import { loadThemePrefs } from "../account/theme.ts"
import { applyConversationPrefs } from "../channels/actions.ts"
import { applyEmojiPrefs } from "../emoji/prefs.ts"
import { refreshChannels } from "../channels/state.ts"
import { statuses, users } from "../people/state.ts"
import { loadMyTeams } from "../people/teams.ts"
import { flagged, loadChannel } from "../posts/state.ts"
import { startSocket, stopSocket } from "../realtime/socket.ts"
import { mfaRequired, needsMfa } from "./mfaRequired.ts"
import { config, currentChannelId, me, sessionEnded, sessionHints, teams } from "./state.ts"

/** A one-line message for the sign-in page, left by the page that sends a person there (a changed password). */
export const NOTICE_KEY = "login-notice"

/** Boot and sign-in/out: the config first (anonymous), then the user when a session cookie says there is one. */
export const boot = async () => {
  config.value = (await client.getClientConfig().catch(() => ({}))) as unknown as Record<string, string>
  if (cookie("MMUSERID")) await signedIn().catch(() => undefined)
}

const loadPreferences = async () => {
  const prefs = (await client.getMyPreferences().catch(() => [])) as unknown as Array<{ category: string; name: string; value: string }>
  flagged.value = new Set(prefs.filter((p) => p.category === "flagged_post").map((p) => p.name))
  applyDisplay(prefs)
  loadThemePrefs(prefs)
  applyConversationPrefs(prefs)
  applyEmojiPrefs(prefs)
}

export const signedIn = async () => {
  const user = await client.getMe()
  // The signed-in config says whether a second factor is enforced: then nothing else would be answered, and the app
  // shows only the set-up page (a full load after activation comes back here with mfa_active set).
  const settings = (await client.getClientConfig()) as unknown as Record<string, string>
  if (needsMfa(user, settings)) {
    config.value = settings
    me.value = user
    mfaRequired.value = true
    return user
  }
  const [full] = await Promise.all([client.getClientConfig(), loadPreferences(), loadMyTeams()])
  config.value = full as unknown as Record<string, string>
  me.value = user
  startSocket({ resync: () => void resync(), closed: () => void checkSession() })
  // This session's expiry, so that its end can be told apart from a revocation (not awaited: nothing waits for it).
  void client.getSessions(user.id).then((list) => {
    sessionHints.expiresAt = list.find(isCurrentSession)?.expires_at ?? 0
  }, () => undefined)
  return user
}

/** This browser's session among the account's: the one whose CSRF token is our MMCSRF cookie. */
export const isCurrentSession = (s: { props?: Record<string, unknown> }) => {
  const csrf = cookie("MMCSRF")
  return csrf !== "" && s.props?.csrf === csrf
}

/** Why the session ended, as far as this client can tell (a deactivation is told by its own event, sessionEnded). */
const endedBecause = () => {
  const now = Date.now()
  if (sessionHints.expiresAt > 0 && now >= sessionHints.expiresAt) return "Your session expired. Sign in again."
  if (now - sessionHints.passwordChangedAt < 60_000) {
    return "Your password was changed, so this session was signed out. Sign in with the new password."
  }
  return "You were signed out: this session was ended from another session or device, or by an administrator. Sign in again."
}

let resyncing: Promise<void> | undefined
/**
 * After a reconnect: everything that may have changed while the socket was down is fetched again (with a fresh hello
 * the server replayed nothing): the person, teams, preferences, channels with memberships and categories, statuses
 * of the people on screen, and the open channel's newest posts.
 */
export const resync = () =>
  (resyncing ??= (async () => {
    try {
      const user = await client.getMe()
      me.value = user
      users.value = { ...users.value, [user.id]: { ...users.value[user.id], ...user } }
      const known = Object.keys(users.value).slice(0, 200)
      await Promise.all([
        loadMyTeams(),
        loadPreferences(),
        refreshChannels(),
        currentChannelId.value ? loadChannel(currentChannelId.value) : undefined,
        known.length > 0 ? client.getStatusesByIds(known).then((found) => {
          statuses.value = { ...statuses.value, ...Object.fromEntries(found.map((s) => [s.user_id, s.status])) }
        }) : undefined
      ])
    } catch {
      // The next reconnect tries again; a session that ended is noticed by checkSession.
    } finally {
      resyncing = undefined
    }
  })())

let checking = false
/**
 * The socket closed: when the session is gone (the API answers 401: revoked by the person elsewhere or an
 * administrator, the password changed, expired), the person is back at sign-in, told why; a network
 * failure or a restarting server is not a 401, and the socket keeps reconnecting.
 */
const checkSession = async () => {
  if (checking || !me.value) return
  checking = true
  try {
    await client.getMe()
  } catch (e) {
    if ((e as { status_code?: number }).status_code === 401) endSession(endedBecause())
  } finally {
    checking = false
  }
}

effect(() => {
  if (sessionEnded.value) endSession(sessionEnded.value)
})

/** Back to sign-in with a message; a full load drops every cached post and profile of the session. */
let ending = false
export const endSession = (why: string) => {
  if (ending) return
  ending = true
  stopSocket()
  // `me` stays set until the page is replaced: cleared now, the app would render its own sign-in page first, which
  // would take the message meant for the freshly loaded one.
  sessionStorage.setItem(NOTICE_KEY, why)
  location.assign("/login")
}

export const signOut = async () => {
  await client.logout().catch(() => undefined)
  stopSocket()
  me.value = null
  teams.value = []
  // A full reload drops every cached post and profile of the previous user.
  location.assign("/login")
}

export const home = () => {
  const team = teams.value[0]
  navigate(team ? `/${team.name}/channels/town-square` : "/create_team", true)
}
