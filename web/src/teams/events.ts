import type { Team, TeamMembership } from "@mattermost/types/teams"
import { batch } from "@preact/signals"
import { navigate, path } from "../app/router.ts"
import { currentTeamId, me, notice, teams } from "../app/state.ts"
import { loadMyTeams, myTeamMembers as teamMembers } from "../people/teams.ts"
import { json, type Handlers } from "../realtime/handlers.ts"

/** A team this person is no longer in: gone from the team list; when it is the one on screen, home with `why`. */
const dropTeam = (teamId: string, why: string) => {
  const team = teams.value.find((t) => t.id === teamId)
  if (!team) return
  batch(() => {
    teams.value = teams.value.filter((t) => t.id !== teamId)
    const { [teamId]: _gone, ...rest } = teamMembers.value
    teamMembers.value = rest
    if (currentTeamId.value === teamId) {
      notice.value = why
      const next = teams.value[0]
      navigate(next ? `/${next.name}/channels/town-square` : "/create_team", true)
    }
  })
}

/** Teams and this person's team roles, live. */
export const teamEvents: Handlers = {
  added_to_team: (data) => {
    if (data.user_id === me.value?.id) void loadMyTeams().catch(() => undefined)
  },
  leave_team: (data) => {
    if (data.user_id !== me.value?.id) return
    const team = teams.value.find((t) => t.id === data.team_id)
    dropTeam(data.team_id, `You are no longer a member of the team “${team?.display_name ?? ""}”.`)
  },
  // A new display name shows at once; a new name moves the address along when it is the team on screen.
  update_team: (data) => {
    const team = json<Team | null>(data.team, null)
    const before = teams.value.find((t) => t.id === team?.id)
    if (!team || !before) return
    teams.value = teams.value.map((t) => (t.id === team.id ? { ...t, ...team } : t))
    const p = path()
    if (before.name !== team.name && p.startsWith(`/${before.name}/`)) navigate(`/${team.name}${p.slice(before.name.length + 1)}`, true)
  },
  delete_team: (data) => {
    const team = json<Team | null>(data.team, null)
    if (team) dropTeam(team.id, `The team “${team.display_name}” was archived.`)
  },
  restore_team: () => void loadMyTeams().catch(() => undefined),
  memberrole_updated: (data) => {
    const member = json<TeamMembership | null>(data.member, null)
    if (member && member.user_id === me.value?.id) teamMembers.value = { ...teamMembers.value, [member.team_id]: { ...teamMembers.value[member.team_id], ...member } }
  }
}


