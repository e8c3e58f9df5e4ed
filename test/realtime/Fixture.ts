import type { Channel } from "@mattermost/types/channels"
import type { Post } from "@mattermost/types/posts"
import type { Team } from "@mattermost/types/teams"
import { Effect } from "effect"
import { expect } from "vitest"
import { Db } from "../../layers/Db.ts"
import { type BroadcastInput, EventBus } from "../../src/events/EventBus.ts"
import { newUser } from "../support/Clients.ts"
import type { TestServer } from "../support/TestServer.ts"
import { type MattermostSocket, sawSequenceGap } from "./Sockets.ts"

/** Users, a team and a channel built over REST, and direct access to a node's event bus and settings. */
export type Member = Awaited<ReturnType<typeof newUser>>

let counter = 0
export const unique = (prefix: string) => `${prefix}${Date.now().toString(36)}${(counter += 1)}`

export const teamWithChannel = async (server: TestServer, names: ReadonlyArray<string>) => {
  const users: Array<Member> = []
  for (const name of names) users.push(await newUser(server.url, name))
  const [owner, ...others] = users
  const team: Team = await owner.client.createTeam({ name: unique("t"), display_name: "Team", type: "O" } as Team)
  for (const m of others) await owner.client.addToTeam(team.id, m.user.id)
  const channel: Channel = await owner.client.createChannel({ team_id: team.id, name: unique("c"), display_name: "Town Hall", type: "O" } as Channel)
  return { users, team, channel }
}

export const say = (member: Member, channelId: string, message: string): Promise<Post> =>
  member.client.createPost({ channel_id: channelId, message } as Post)

export const publish = (server: TestServer, event: string, data: Record<string, unknown>, broadcast: BroadcastInput) =>
  server.runtime.runPromise(Effect.flatMap(EventBus, (bus) => bus.publish(event, data, broadcast)))

export const setMaxConnections = (server: TestServer, max: number) =>
  server.runtime.runPromise(Effect.flatMap(Db, (db) =>
    db.execute(db.sql`UPDATE server_config SET value = value || ${JSON.stringify({ max_simultaneous_connections: max })}::jsonb WHERE section = 'site'`)))

export const stats = async (server: TestServer) =>
  (await (await fetch(`${server.url}/api/v1/health/stats`)).json()) as { websocket_connections: number; active_users: number }

/**
 * What a client that was moved between sockets (or nodes) must have seen: exactly these posts in order, one hello,
 * nothing missed, and sequence numbers from 0 without a gap.
 */
export const expectSeamless = (socket: MattermostSocket, texts: ReadonlyArray<string>) => {
  expect(socket.named("posted").map((e) => (JSON.parse(e.data?.post as string) as Post).message)).toEqual(texts)
  expect(socket.named("hello")).toHaveLength(1)
  expect(socket.missed).toHaveLength(0)
  expect(socket.events.map((e) => e.seq)).toEqual(socket.events.map((_, i) => i))
  expect(sawSequenceGap()).toBe(false)
}
