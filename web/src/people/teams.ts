import { signal } from "@preact/signals"
import type { TeamMembership, TeamUnread } from "@mattermost/types/teams"
import { client } from "../app/api.ts"
import { isAdmin, teams } from "../app/state.ts"

/** The signed-in person's team memberships (their roles) and each team's unread and mention counts (the switcher). */
export const myTeamMembers = signal<Record<string, TeamMembership>>({})
export const teamUnreads = signal<Record<string, TeamUnread>>({})

export const loadMyTeams = async () => {
  const [mine, members, unreads] = await Promise.all([client.getMyTeams(), client.getMyTeamMembers(), client.getMyTeamUnreads(false)])
  teams.value = mine
  myTeamMembers.value = Object.fromEntries(members.map((m) => [m.team_id, m]))
  teamUnreads.value = Object.fromEntries(unreads.map((u) => [u.team_id, u]))
}

let unreadTimer: ReturnType<typeof setTimeout> | undefined
/** Asked again a moment after activity elsewhere (several posts in a burst make one request). */
export const refreshTeamUnreads = () => {
  if (unreadTimer) return
  unreadTimer = setTimeout(async () => {
    unreadTimer = undefined
    const unreads = await client.getMyTeamUnreads(false).catch(() => null)
    if (unreads) teamUnreads.value = Object.fromEntries(unreads.map((u) => [u.team_id, u]))
  }, 300)
}

export const isTeamAdmin = (teamId: string) =>
  isAdmin.value || (myTeamMembers.value[teamId]?.roles ?? "").split(" ").includes("team_admin") || !!myTeamMembers.value[teamId]?.scheme_admin
