import { signal } from "@preact/signals"
import { v1 } from "../app/api.ts"
import { config, me } from "../app/state.ts"
import { myTeamMembers } from "../people/teams.ts"

/**
 * Who may open the integrations pages, as Mattermost's webapp decides it: the permissions of the person's system
 * roles and of their roles in the team (POST /api/v4/roles/names), each kind of integration also switched on in the
 * site's settings (client config). Small and in the first load: the team menu asks it; the pages themselves are lazy.
 */
export const rolePermissions = signal<Record<string, ReadonlyArray<string>>>({})

const roleNames = (teamId: string) => {
  const member = myTeamMembers.value[teamId]
  const names = [...(me.value?.roles ?? "").split(" "), ...(member?.roles ?? "").split(" ")]
  if (member?.scheme_admin) names.push("team_admin")
  if (member?.scheme_user) names.push("team_user")
  return [...new Set(names.filter(Boolean))]
}

let asking: Promise<void> | undefined
/** Fetches the definitions of the roles not yet known (one request; again only when a new role name shows up). */
export const loadRolePermissions = (teamId: string) => {
  const missing = roleNames(teamId).filter((n) => !(n in rolePermissions.value))
  if (missing.length === 0 || asking) return asking ?? Promise.resolve()
  asking = v1<Array<{ name: string; permissions: Array<string> }>>("POST", "/api/v4/roles/names", missing)
    .then((roles) => {
      const next = { ...rolePermissions.value }
      for (const name of missing) next[name] = roles.find((r) => r.name === name)?.permissions ?? []
      rolePermissions.value = next
    })
    .catch(() => undefined)
    .finally(() => (asking = undefined))
  return asking
}

export const can = (teamId: string, permission: string) =>
  roleNames(teamId).some((n) => rolePermissions.value[n]?.includes(permission))

/** The kinds whose pages the web client has so far (the others are served by the API only). */
const BUILT: ReadonlyArray<string> = ["incoming_webhooks", "outgoing_webhooks", "commands", "bots"]

const on = (key: string) => config.value[key] !== "false"

/** The kinds of integration this person may manage in the team, in the order of Mattermost's integrations menu. */
export const allowedKinds = (teamId: string) => {
  const kinds: Array<"incoming_webhooks" | "outgoing_webhooks" | "commands" | "bots"> = []
  if (on("EnableIncomingWebhooks") && can(teamId, "manage_incoming_webhooks")) kinds.push("incoming_webhooks")
  if (on("EnableOutgoingWebhooks") && can(teamId, "manage_outgoing_webhooks")) kinds.push("outgoing_webhooks")
  if (on("EnableCommands") && can(teamId, "manage_slash_commands")) kinds.push("commands")
  if (can(teamId, "read_bots") || can(teamId, "manage_bots") || can(teamId, "create_bot")) kinds.push("bots")
  return kinds.filter((k) => BUILT.includes(k))
}
