import { Effect, Option } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeMemory, PushSendError } from "../../layers/PushSender.ts"
import { PushQueue, QUEUE_CAPACITY } from "../../src/push/PushQueue.ts"
import { clearPush } from "../../src/push/PushTemplate.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"
import { call, eventually, makeTeam } from "./support.ts"

/**
 * The delivery queue with the in-memory transport: bounded (overflow is dropped and counted, never waited for),
 * retries honour the provider's Retry-After.
 */

let server: TestServer
const memory = makeMemory()

const device = (token: string) => ({
  userId: "u".repeat(26),
  token,
  platform: "android" as const,
  proxyPlatform: "android_rn-v2",
  sessionId: Option.none(),
  voip: Option.none()
})

const droppedCount = async () => {
  const text = await (await fetch(`${server.url}/api/v1/health/metrics`)).text()
  return Number(/service_push_dropped_total\{reason="queue_full"\} (\d+)/.exec(text)?.[1] ?? 0)
}

beforeAll(async () => {
  server = await startServer({ overrides: { pushSender: memory.layer } })
  const { admin } = await makeTeam(server.url, [])
  await call(server.url, "PUT", "/api/v1/admin/push", admin.token, { push_proxy_url: "http://127.0.0.1:9" })
})
afterAll(() => server?.close())

describe("delivery queue", () => {
  it("retries after the provider's Retry-After", async () => {
    const attempts: Array<number> = []
    memory.respondWith((recorded) =>
      Effect.suspend(() => {
        if (recorded.push.token !== "retry-me") return Effect.succeed({ _tag: "Sent" } as const)
        attempts.push(Date.now())
        return attempts.length === 1
          ? Effect.fail(new PushSendError({ transport: "proxy", reason: "429", retryable: true, retryAfterMs: Option.some(1500) }))
          : Effect.succeed({ _tag: "Sent" } as const)
      }))
    await server.runtime.runPromise(Effect.flatMap(PushQueue, (q) => q.offer([{ device: device("retry-me"), template: clearPush("c", 0) }])))
    await eventually(() => attempts.length >= 2 ? true : undefined, 5000)
    expect(attempts[1] - attempts[0]).toBeGreaterThanOrEqual(1450)
    expect(memory.sent.filter((r) => r.push.token === "retry-me")).toHaveLength(2)
  })

  it("drops and counts what does not fit while the provider is stuck, without making the offer wait", async () => {
    memory.respondWith(() => Effect.never)
    const before = await droppedCount()
    const jobs = Array.from({ length: QUEUE_CAPACITY + 50 }, (_, i) => ({ device: device(`stuck-${i}`), template: clearPush("c", 0) }))
    const started = Date.now()
    await server.runtime.runPromise(Effect.flatMap(PushQueue, (q) => q.offer(jobs)))
    expect(Date.now() - started).toBeLessThan(3000)
    const dropped = (await droppedCount()) - before
    // The workers hold a few jobs; the queue holds its capacity; the rest is dropped.
    expect(dropped).toBeGreaterThan(0)
    expect(dropped).toBeLessThanOrEqual(50)
  })
})
