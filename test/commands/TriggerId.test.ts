import { Effect, Either, Layer, Redacted, TestClock, TestContext } from "effect"
import { describe, expect, it } from "vitest"
import { AppConfig } from "../../src/Config.ts"
import { issueTriggerId, TRIGGER_ID_LIFETIME_MS, verifyTriggerId } from "../../src/integrations/TriggerId.ts"
import { testConfig } from "../support/TestServer.ts"

/** Trigger ids on the TestClock: bound to the user, signed with the server's secret, short-lived. */
const config = testConfig()
const run = <A, E>(effect: Effect.Effect<A, E, AppConfig>, secret = config.jwtSecretValue) =>
  Effect.runPromise(effect.pipe(Effect.provide(Layer.merge(Layer.succeed(AppConfig, { ...config, jwtSecretValue: secret }), TestContext.TestContext))))

const userId = "u".repeat(26)

describe("trigger ids", () => {
  it("verify for the user they were issued to until their lifetime is over", async () => {
    const outcome = await run(Effect.gen(function*() {
      const issued = yield* issueTriggerId(userId)
      const fresh = yield* verifyTriggerId(issued.triggerId)
      yield* TestClock.adjust(TRIGGER_ID_LIFETIME_MS)
      const last = yield* Effect.either(verifyTriggerId(issued.triggerId))
      yield* TestClock.adjust(1)
      const expired = yield* Effect.either(verifyTriggerId(issued.triggerId))
      return { issued, fresh, last, expired }
    }))
    expect(outcome.fresh).toEqual({ clientTriggerId: outcome.issued.clientTriggerId, userId })
    expect(Either.isRight(outcome.last)).toBe(true)
    expect(Either.isLeft(outcome.expired) && outcome.expired.left.id).toBe("interactive_message.decode_trigger_id.expired")
  })

  it("refuse ids signed with another secret or altered", async () => {
    const issued = await run(issueTriggerId(userId))
    const other = await run(Effect.either(verifyTriggerId(issued.triggerId)), Redacted.make("another-secret-another-secret-12"))
    expect(Either.isLeft(other) && other.left.id).toBe("interactive_message.decode_trigger_id.verify_signature_failed")
    const [client, , at, signature] = Buffer.from(issued.triggerId, "base64").toString().split(":")
    const altered = Buffer.from(`${client}:${"v".repeat(26)}:${at}:${signature}`).toString("base64")
    const refused = await run(Effect.either(verifyTriggerId(altered)))
    expect(Either.isLeft(refused) && refused.left.id).toBe("interactive_message.decode_trigger_id.verify_signature_failed")
  })
})
