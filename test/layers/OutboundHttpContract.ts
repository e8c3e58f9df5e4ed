import { expect } from "@effect/vitest"
import { Effect, type Scope } from "effect"
import type { OutboundHttpService, RawAnswer } from "../../layers/OutboundHttp.ts"

/** What a receiver sees of a request. */
export interface Seen {
  readonly method: string
  readonly path: string
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
}

export type Receive = (seen: Seen) => Promise<RawAnswer>

/** The behaviour every OutboundHttp implementation owes its callers, run against the live network and memory. */
export interface OutboundHarness {
  readonly make: (options: {
    readonly allow: ReadonlyArray<string>
    readonly names?: Readonly<Record<string, ReadonlyArray<string>>>
    readonly breakerFailures?: number
  }) => Effect.Effect<{
    readonly service: OutboundHttpService
    /** A receiver on 127.0.0.1; its origin such as http://127.0.0.1:41234. */
    readonly receiver: (receive: Receive) => Effect.Effect<string, never, Scope.Scope>
    /** An origin on 127.0.0.1 where nothing listens. */
    readonly closed: Effect.Effect<string, never, Scope.Scope>
  }, never, Scope.Scope>
}

const ok = (body = "ok", headers: Record<string, string> = {}): RawAnswer => ({ status: 200, headers, body })
const redirect = (status: number, location: string): RawAnswer => ({ status, headers: { location }, body: "" })

/** A receiver that records what it saw and answers with `answer`. */
const recording = (answer: (seen: Seen) => RawAnswer) => {
  const seen: Array<Seen> = []
  const receive: Receive = async (s) => {
    seen.push(s)
    return answer(s)
  }
  return { seen, receive }
}

type Case = readonly [name: string, body: (h: OutboundHarness) => Effect.Effect<void, unknown, Scope.Scope>]

export const outboundContract: ReadonlyArray<Case> = [
  ["refuses loopback without the allow-list, and the receiver never hears of it", (h) =>
    Effect.gen(function*() {
      const { receiver, service } = yield* h.make({ allow: [] })
      const r = recording(() => ok())
      const origin = yield* receiver(r.receive)
      const error = yield* Effect.flip(service.request({ url: `${origin}/hook`, method: "POST", body: "x" }))
      expect(error._tag).toBe("OutboundRefused")
      expect(error.message).toContain("SERVICE_ALLOW_INTERNAL_CONNECTIONS")
      expect(r.seen).toHaveLength(0)
    })],

  ["delivers to an allowed address: method, headers, body, status and answer", (h) =>
    Effect.gen(function*() {
      const { receiver, service } = yield* h.make({ allow: ["127.0.0.1"] })
      const r = recording((s) => ({ status: 201, headers: { "content-type": "application/json", "x-echo": s.headers["x-token"] ?? "" }, body: `{"got":${JSON.stringify(s.body)}}` }))
      const origin = yield* receiver(r.receive)
      const answer = yield* service.request({
        url: `${origin}/hook?a=1`,
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", "x-token": "t1" },
        body: "text=hello"
      })
      expect(answer.status).toBe(201)
      expect(answer.headers["x-echo"]).toBe("t1")
      expect(JSON.parse(answer.body)).toEqual({ got: "text=hello" })
      expect(r.seen).toHaveLength(1)
      expect(r.seen[0].method).toBe("POST")
      expect(r.seen[0].path).toBe("/hook?a=1")
    })],

  ["a CIDR range on the allow-list opens the range", (h) =>
    Effect.gen(function*() {
      const { receiver, service } = yield* h.make({ allow: ["127.0.0.0/8"] })
      const origin = yield* receiver(async () => ok("ranged"))
      expect((yield* service.request({ url: origin })).body).toBe("ranged")
    })],

  ["judges a host name by every address it resolves to", (h) =>
    Effect.gen(function*() {
      const { receiver, service } = yield* h.make({
        allow: ["127.0.0.1"],
        names: { "ci.test": ["127.0.0.1"], "intranet.test": ["10.20.30.40"], "mixed.test": ["127.0.0.1", "192.168.1.5"] }
      })
      const origin = yield* receiver(async () => ok("by name"))
      const port = new URL(origin).port
      expect((yield* service.request({ url: `http://ci.test:${port}/x` })).body).toBe("by name")
      const intranet = yield* Effect.flip(service.request({ url: `http://intranet.test:${port}/x` }))
      expect(intranet).toMatchObject({ _tag: "OutboundRefused", address: "10.20.30.40" })
      const mixed = yield* Effect.flip(service.request({ url: `http://mixed.test:${port}/x` }))
      expect(mixed).toMatchObject({ _tag: "OutboundRefused", address: "192.168.1.5" })
      const unknown = yield* Effect.flip(service.request({ url: `http://nowhere.invalid:${port}/x` }))
      expect(unknown._tag).toBe("OutboundUnreachable")
    })],

  ["a host name on the allow-list is allowed whatever it resolves to", (h) =>
    Effect.gen(function*() {
      const { receiver, service } = yield* h.make({ allow: ["Hooks.Internal"], names: { "hooks.internal": ["127.0.0.1"] } })
      const origin = yield* receiver(async () => ok("named"))
      const port = new URL(origin).port
      expect((yield* service.request({ url: `http://hooks.internal:${port}/` })).body).toBe("named")
      // The name is allowed, not the address behind it.
      expect((yield* Effect.flip(service.request({ url: origin })))._tag).toBe("OutboundRefused")
    })],

  ["refuses every internal range, IPv4 and IPv6, including IPv4 inside IPv6", (h) =>
    Effect.gen(function*() {
      const { service } = yield* h.make({ allow: [] })
      const internal = [
        "127.0.0.1", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.0.1", "169.254.169.254", "100.64.0.1",
        "0.0.0.0", "224.0.0.1", "255.255.255.255", "[::1]", "[::]", "[fe80::1]", "[fc00::1]", "[fd00:ec2::254]",
        "[ff02::1]", "[::ffff:127.0.0.1]", "[::ffff:a9fe:a9fe]", "[64:ff9b::10.0.0.1]", "[2002:c0a8:0101::1]", "2130706433",
        "0x7f.1", "localtest.me.internal.invalid"
      ]
      for (const host of internal) {
        const error = yield* Effect.flip(service.request({ url: `http://${host}/` }))
        expect([host, error._tag]).toEqual([host, host.endsWith(".invalid") ? "OutboundUnreachable" : "OutboundRefused"])
      }
    })],

  ["refuses what is not an absolute http(s) URL", (h) =>
    Effect.gen(function*() {
      const { service } = yield* h.make({ allow: ["127.0.0.1"] })
      for (const url of ["ftp://127.0.0.1/", "file:///etc/passwd", "not a url", "/relative", "gopher://x/"]) {
        expect((yield* Effect.flip(service.request({ url })))._tag).toBe("OutboundInvalidUrl")
      }
    })],

  ["follows redirects, checking each hop; a 303 turns a POST into a GET", (h) =>
    Effect.gen(function*() {
      const { receiver, service } = yield* h.make({ allow: ["127.0.0.1"] })
      const target = recording(() => ok("arrived"))
      const targetOrigin = yield* receiver(target.receive)
      const hop = yield* receiver(async () => redirect(303, `${targetOrigin}/final`))
      const answer = yield* service.request({ url: `${hop}/start`, method: "POST", headers: { "content-type": "text/plain" }, body: "b" })
      expect(answer.body).toBe("arrived")
      expect(answer.url).toBe(`${targetOrigin}/final`)
      expect(target.seen[0]).toMatchObject({ method: "GET", path: "/final", body: "" })

      for (const forbidden of ["http://169.254.169.254/latest/meta-data/", "http://[::ffff:10.0.0.1]/", "http://[::1]:8080/"]) {
        const bouncer = yield* receiver(async () => redirect(302, forbidden))
        expect((yield* Effect.flip(service.request({ url: bouncer })))._tag).toBe("OutboundRefused")
      }
      const elsewhere = yield* receiver(async () => redirect(307, "ftp://127.0.0.1/"))
      expect((yield* Effect.flip(service.request({ url: elsewhere })))._tag).toBe("OutboundInvalidUrl")
    })],

  ["gives up after too many redirects", (h) =>
    Effect.gen(function*() {
      const { receiver, service } = yield* h.make({ allow: ["127.0.0.1"] })
      const loop = recording((s) => redirect(302, s.path === "/" ? "/again" : "/"))
      const origin = yield* receiver(loop.receive)
      expect((yield* Effect.flip(service.request({ url: origin, maxRedirects: 3 })))._tag).toBe("OutboundTooManyRedirects")
      expect(loop.seen).toHaveLength(4)
      expect((yield* service.request({ url: origin, maxRedirects: 0 })).status).toBe(302)
    })],

  ["refuses an answer larger than the limit", (h) =>
    Effect.gen(function*() {
      const { receiver, service } = yield* h.make({ allow: ["127.0.0.1"] })
      const origin = yield* receiver(async () => ok("x".repeat(5000)))
      const error = yield* Effect.flip(service.request({ url: origin, maxBytes: 1000 }))
      expect(error).toMatchObject({ _tag: "OutboundTooLarge", limit: 1000 })
      expect((yield* service.request({ url: origin, maxBytes: 5000 })).body).toHaveLength(5000)
    })],

  ["times out a destination that does not answer", (h) =>
    Effect.gen(function*() {
      const { receiver, service } = yield* h.make({ allow: ["127.0.0.1"] })
      const origin = yield* receiver(() => new Promise(() => {}))
      const started = Date.now()
      const error = yield* Effect.flip(service.request({ url: origin, timeout: "300 millis" }))
      expect(error._tag).toBe("OutboundTimeout")
      expect(Date.now() - started).toBeLessThan(3000)
    })],

  ["opens a breaker per destination host after repeated failures, leaving other hosts alone", (h) =>
    Effect.gen(function*() {
      const { closed, receiver, service } = yield* h.make({ allow: ["127.0.0.0/8"], breakerFailures: 2 })
      const dead = yield* closed
      for (let i = 0; i < 2; i++) expect((yield* Effect.flip(service.request({ url: dead })))._tag).toBe("OutboundUnreachable")
      expect((yield* Effect.flip(service.request({ url: dead })))._tag).toBe("CircuitOpenError")
      // Another host (127.0.0.2 is loopback too) has its own breaker.
      const alive = yield* receiver(async () => ok("alive"))
      const other = alive.replace("127.0.0.1", "127.0.0.2")
      const answer = yield* Effect.either(service.request({ url: other }))
      expect(answer._tag === "Left" ? answer.left._tag : "answered").not.toBe("CircuitOpenError")
    })]
]
