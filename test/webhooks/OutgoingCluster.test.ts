import type { Channel } from "@mattermost/types/channels"
import type { OutgoingWebhook } from "@mattermost/types/integrations"
import type { Post } from "@mattermost/types/posts"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client4, newUser, unique } from "../support/Clients.ts"
import { hasRedis, redisUrl } from "../support/Databases.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"
import { type Receiver, startReceiver } from "./Receiver.ts"

/**
 * Each node keeps its teams' outgoing hooks in memory (src/webhooks/OutgoingHookCache.ts): a change made on one node
 * reaches the other over the bus, so posts there fire with it a few milliseconds later (polled here, bounded by
 * WITHIN_MS, far below the cache's one-minute expiry).
 */
const cluster = hasRedis() ? describe : describe.skip
if (!hasRedis()) console.log("[webhooks] Redis is not reachable: the outgoing hook cache test across nodes is skipped")

const WITHIN_MS = 2000

let nodeA: TestServer
let nodeB: TestServer
let receiver: Receiver

cluster("outgoing webhooks across two nodes", () => {
  beforeAll(async () => {
    receiver = await startReceiver()
    const env = { SERVICE_CACHE_URL: redisUrl(), SERVICE_ALLOW_INTERNAL_CONNECTIONS: "127.0.0.1" }
    nodeA = await startServer({ env })
    nodeB = await startServer({ env, databaseUrl: nodeA.databaseUrl })
  })
  afterAll(async () => {
    await nodeB?.close()
    await nodeA?.close()
    await receiver?.close()
  })

  /** Posts `message` on node A until the receiver got a call satisfying `done`. */
  const postUntil = async (post: () => Promise<Post>, path: string, done: (form: Record<string, string>) => boolean) => {
    const started = Date.now()
    for (;;) {
      await post()
      const seen = receiver.at(path).map((r) => Object.fromEntries(new URLSearchParams(r.body)))
      if (seen.some(done)) return seen
      if (Date.now() - started > WITHIN_MS) throw new Error(`no matching call after ${WITHIN_MS} ms: ${JSON.stringify(seen)}`)
      await new Promise((r) => setTimeout(r, 20))
    }
  }

  it("a hook made, and its token regenerated, on one node fire from posts on the other", async () => {
    const lead = await newUser(nodeA.url, "lead")
    const team = await lead.client.createTeam({ name: unique("team"), display_name: "Team", type: "O" } as never)
    const channel = await lead.client.createChannel({ team_id: team.id, name: unique("ops"), display_name: "Ops", type: "O" } as Channel)
    const say = () => lead.client.createPost({ channel_id: channel.id, message: "ping now" } as Post)
    await say() // node A now holds the team's hooks (none) in memory
    const onB = client4(nodeB.url, lead.client.getToken())
    const hook = await onB.createOutgoingWebhook({ team_id: team.id, channel_id: channel.id, trigger_words: ["ping"], callback_urls: [receiver.url("/cluster")] } as OutgoingWebhook)
    await postUntil(say, "/cluster", (f) => f.token === hook.token)
    const regenerated = await onB.regenOutgoingHookToken(hook.id)
    const seen = await postUntil(say, "/cluster", (f) => f.token === regenerated.token)
    expect(seen.every((f) => f.token === hook.token || f.token === regenerated.token)).toBe(true)
  })
})
