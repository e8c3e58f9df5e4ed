import { client, cookie } from "./api.ts"
import { navigate } from "./router.ts"
import { applyDisplay } from "../account/preferences.ts"
import { applyConversationPrefs } from "../channels/actions.ts"
import { loadMyTeams } from "../people/teams.ts"
import { flagged } from "../posts/state.ts"
import { startSocket, stopSocket } from "../realtime/socket.ts"
import { config, me, teams } from "./state.ts"

/** Boot and sign-in/out: the config first (anonymous), then the user when a session cookie says there is one. */
export const boot = async () => {
  config.value = (await client.getClientConfig().catch(() => ({}))) as unknown as Record<string, string>
  if (cookie("MMUSERID")) await signedIn().catch(() => undefined)
}

export const signedIn = async () => {
  const user = await client.getMe()
  const [mine, full, prefs] = await Promise.all([client.getMyTeams(), client.getClientConfig(), client.getMyPreferences().then((p) => p as unknown as Array<{ category: string; name: string; value: string }>, () => [])])
  config.value = full as unknown as Record<string, string>
  flagged.value = new Set(prefs.filter((p) => p.category === "flagged_post").map((p) => p.name))
  applyDisplay(prefs as Array<{ category: string; name: string; value: string }>)
  applyConversationPrefs(prefs)
  teams.value = mine
  // Team roles (who may regenerate the invite link, promote, remove) and the switcher's unread counts.
  void loadMyTeams().catch(() => undefined)
  me.value = user
  startSocket()
  return user
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
