import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import * as OutboundHttp from "../../layers/OutboundHttp.ts"
import { type OutboundHarness, outboundContract, type Receive } from "./OutboundHttpContract.ts"

/** A real HTTP server on 127.0.0.1 for the length of the test. */
const listen = (receive: Receive) =>
  Effect.acquireRelease(
    Effect.async<Server>((resume) => {
      const server = createServer((req, res) => {
        const chunks: Array<Buffer> = []
        req.on("data", (c: Buffer) => chunks.push(c))
        req.on("end", () => {
          const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]))
          receive({ method: req.method ?? "", path: req.url ?? "", headers, body: Buffer.concat(chunks).toString() })
            .then((a) => res.writeHead(a.status, a.headers).end(a.body))
        })
      })
      server.listen(0, "127.0.0.1", () => resume(Effect.succeed(server)))
    }),
    (server) => Effect.async<void>((resume) => {
      server.closeAllConnections()
      server.close(() => resume(Effect.void))
    })
  )

const origin = (server: Server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}`

const live: OutboundHarness = {
  make: (options) =>
    Effect.gen(function*() {
      const service = yield* OutboundHttp.makeLive({
        ...options,
        // Test names resolve from the table; everything else through the system resolver.
        resolve: async (host) => options.names?.[host] ?? (await import("node:dns/promises")).lookup(host, { all: true }).then((a) => a.map((x) => x.address))
      })
      return {
        service,
        receiver: (receive) => Effect.map(listen(receive), origin),
        closed: Effect.gen(function*() {
          // A port that was just free: listen, note it, close.
          const server = yield* listen(async () => ({ status: 200, headers: {}, body: "" }))
          const url = origin(server)
          yield* Effect.async<void>((resume) => {
            server.close(() => resume(Effect.void))
          })
          return url
        })
      }
    })
}

let nextPort = 20000
const memory: OutboundHarness = {
  make: (options) =>
    Effect.gen(function*() {
      const m = yield* OutboundHttp.makeMemory(options)
      return {
        service: m.service,
        receiver: (receive) =>
          Effect.sync(() => {
            const at = `http://127.0.0.1:${nextPort++}`
            m.serve(at, (r) =>
              Effect.promise(() => {
                const url = new URL(r.url)
                return receive({ method: r.method, path: url.pathname + url.search, headers: r.headers, body: r.body ?? "" })
              }))
            return at
          }),
        closed: Effect.sync(() => `http://127.0.0.1:${nextPort++}`)
      }
    })
}

describe("OutboundHttp, live (loopback receivers)", () => {
  for (const [name, body] of outboundContract) it.scopedLive(name, () => body(live))

  it.scopedLive("connects to the address it checked: the name is not resolved a second time (DNS rebinding)", () =>
    Effect.gen(function*() {
      const answers = [["127.0.0.1"], ["10.9.9.9"]]
      let lookups = 0
      const service = yield* OutboundHttp.makeLive({
        allow: ["127.0.0.1"],
        resolve: async () => answers[Math.min(lookups++, 1)]
      })
      const server = yield* listen(async () => ({ status: 200, headers: {}, body: "pinned" }))
      const port = (server.address() as AddressInfo).port
      // rebind.test exists nowhere: the answer proves the socket used the checked address, not a fresh lookup.
      expect((yield* service.request({ url: `http://rebind.test:${port}/` })).body).toBe("pinned")
      expect(lookups).toBe(1)
      expect((yield* Effect.flip(service.request({ url: `http://rebind.test:${port}/` })))._tag).toBe("OutboundRefused")
    }))

  it.scopedLive("refuses localhost through the system resolver without the allow-list", () =>
    Effect.gen(function*() {
      const service = yield* OutboundHttp.makeLive({ allow: [] })
      const server = yield* listen(async () => ({ status: 200, headers: {}, body: "" }))
      const port = (server.address() as AddressInfo).port
      const error = yield* Effect.flip(service.request({ url: `http://localhost:${port}/` }))
      expect(error._tag).toBe("OutboundRefused")
    }))
})

describe("OutboundHttp in memory", () => {
  for (const [name, body] of outboundContract) it.scopedLive(name, () => body(memory))
})
