import type { Team } from "@mattermost/types/teams"
import { newUser, unique } from "./Clients.ts"

/**
 * Two fresh users signed up through Client4 (`prefixes` start their usernames): the first creates a team (open
 * unless `team` says otherwise) and adds the second to it.
 */
export const teamOfTwo = async (url: string, prefixes: readonly [owner: string, member: string], team: Partial<Team> = {}) => {
  const owner = await newUser(url, prefixes[0])
  const member = await newUser(url, prefixes[1])
  const created: Team = await owner.client.createTeam({ name: unique("team"), display_name: "Team", type: "O", ...team } as Team)
  await owner.client.addToTeam(created.id, member.user.id)
  return { owner, member, team: created }
}
