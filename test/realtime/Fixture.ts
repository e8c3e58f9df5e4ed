import type { Channel } from "@mattermost/types/channels"
import type { Post } from "@mattermost/types/posts"
import type { Team } from "@mattermost/types/teams"
import { Effect } from "effect"
import { expect } from "vitest"
import { Db } from "../../layers/Db.ts"
import { type BroadcastInput, EventBus } from "../../src/events/EventBus.ts"
import { newUser } from "../support/Clients.ts"
import { redisUrl } from "../support/Databases.ts"
import { startTcpProxy } from "../support/TcpProxy.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"
import { type MattermostSocket, RawSocket, retryUntilAdmitted, sawSequenceGap, wsUrl } from "./Sockets.ts"

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

/** Two users in a team and both in its channel (the first created them), on the server at `url`. */
export const pairInChannel = async (url: string, names: readonly [string, string]) => {
  const setup = await teamWithChannel({ url } as TestServer, names)
  await setup.users[0].client.addToChannel(setup.users[1].user.id, setup.channel.id)
  return { users: setup.users, channelId: setup.channel.id }
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

/**
 * With max_simultaneous_connections at 2: one socket of `user` on each node, a third refused with the close reason,
 * a slot freed on one node taken on the other, and the user offline (as `observer` sees it) only once the last socket
 * closed. `track` receives every socket opened.
 */
export const expectLimitAcrossNodes = async (
  nodes: readonly [string, string],
  user: Member,
  observer: Member,
  track: (s: { close: () => void }) => void
) => {
  const [a, b] = nodes.map((url) => wsUrl(url))
  const headers = { Authorization: `Bearer ${user.client.getToken()}` }
  const open = (url: string) => {
    const s = new RawSocket(url, { headers })
    track(s)
    return s
  }
  const statusOf = async () => (await observer.client.getStatus(user.user.id)).status
  const onA = open(a)
  await onA.waitFor((f) => f.event === "hello", "hello on A")
  const onB = open(b)
  await onB.waitFor((f) => f.event === "hello", "hello on B")
  const third = open(a)
  expect(await third.waitClosed()).toEqual({ code: 1008, reason: "Too many connections" })
  expect(third.events()).toHaveLength(0)
  expect(await statusOf()).toBe("online")
  onA.close()
  // Node A notices the close asynchronously; until then the slot is still taken.
  const again = await retryUntilAdmitted(b, headers, track)
  again.close()
  expect(await statusOf()).toBe("online")
  onB.close()
  let status = await statusOf()
  for (let i = 0; i < 200 && status !== "offline"; i++) {
    await new Promise((r) => setTimeout(r, 20))
    status = await statusOf()
  }
  expect(status).toBe("offline")
}

/**
 * Two nodes on one database and the run's Redis, node A reaching Redis through a TCP proxy (test/support/TcpProxy.ts)
 * that can cut or stall it, node B directly.
 */
export const nodesWithProxiedRedis = async () => {
  const target = new URL(redisUrl())
  const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 6379) })
  const viaProxy = new URL(redisUrl())
  viaProxy.host = proxy.address
  const nodeA = await startServer({ env: { SERVICE_CACHE_URL: viaProxy.toString() } })
  const nodeB = await startServer({ env: { SERVICE_CACHE_URL: redisUrl() }, databaseUrl: nodeA.databaseUrl })
  return { proxy, nodeA, nodeB }
}
