import { describe, it } from "@effect/vitest"
import { Redacted } from "effect"
import * as PubSub from "../../layers/PubSub.ts"
import { hasRedis, redisKeyPrefix, redisUrl } from "../support/Databases.ts"
import { pubSubContract } from "./PubSubContract.ts"

const prefix = redisKeyPrefix()

describe("PubSub in memory", () => {
  for (const [name, body] of pubSubContract) {
    it.scopedLive(name, () => body({ make: PubSub.makeMemory, topic: (t) => t }))
  }
})

const redisTitle = hasRedis() ? "PubSub on Redis" : "PubSub on Redis: NOT RUN, Redis is not reachable"

describe.concurrent(redisTitle, () => {
  for (const [index, [name, body]] of pubSubContract.entries()) {
    it.scopedLive.skipIf(!hasRedis())(name, () =>
      body({ make: PubSub.makeRedis(Redacted.make(redisUrl())), topic: (t) => `${prefix}pubsub:${index}:${t}` }))
  }
})
