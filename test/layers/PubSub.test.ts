import { describe, it } from "@effect/vitest"
import { Redacted } from "effect"
import { randomBytes } from "node:crypto"
import * as PubSub from "../../layers/PubSub.ts"
import { hasRedis, redisUrl } from "../support/Databases.ts"
import { pubSubContract } from "./PubSubContract.ts"

const run = randomBytes(4).toString("hex")

describe("PubSub in memory", () => {
  for (const [name, body] of pubSubContract) {
    it.scopedLive(name, () => body({ make: PubSub.makeMemory, topic: (t) => t }))
  }
})

const redisTitle = hasRedis() ? "PubSub on Redis" : "PubSub on Redis: NOT RUN, Redis is not reachable"

describe.concurrent(redisTitle, () => {
  for (const [index, [name, body]] of pubSubContract.entries()) {
    it.scopedLive.skipIf(!hasRedis())(name, () =>
      body({ make: PubSub.makeRedis(Redacted.make(redisUrl())), topic: (t) => `test:pubsub:${run}:${index}:${t}` }))
  }
})
