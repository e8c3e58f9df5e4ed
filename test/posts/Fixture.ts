import type { Channel } from "@mattermost/types/channels"
import type { Post } from "@mattermost/types/posts"
import type { Team } from "@mattermost/types/teams"
import { newUser } from "../support/Clients.ts"
import type { TestServer } from "../support/TestServer.ts"

/** A team with an owner (channel admin of what they create) and members, built through Client4. */
export type Member = Awaited<ReturnType<typeof newUser>>

let counter = 0
export const unique = (prefix: string) => `${prefix}${Date.now().toString(36)}${(counter += 1)}`

export const teamWith = async (server: TestServer, memberCount: number) => {
  const owner = await newUser(server.url, "own")
  const members: Array<Member> = []
  for (let i = 0; i < memberCount; i++) members.push(await newUser(server.url, `m${i}`))
  const team: Team = await owner.client.createTeam({ name: unique("t"), display_name: "Team", type: "O" } as Team)
  for (const m of members) await owner.client.addToTeam(team.id, m.user.id)
  return { owner, members, team }
}

export const channelIn = async (owner: Member, team: Team, type: "O" | "P", joiners: ReadonlyArray<Member>) => {
  const channel: Channel = await owner.client.createChannel({ team_id: team.id, name: unique("c"), display_name: "Chan", type } as Channel)
  for (const m of joiners) await owner.client.addToChannel(m.user.id, channel.id)
  // Each added member has their add post as a mention (Mattermost's implicit mention, test/posts/SystemPosts.test.ts);
  // they open the channel once, so the counts the tests read start at zero.
  for (const m of joiners) await m.client.viewMyChannel(channel.id)
  return channel
}

export const say = (member: Member, channelId: string, message: string, rootId = "") =>
  member.client.createPost({ channel_id: channelId, message, root_id: rootId } as Post)
