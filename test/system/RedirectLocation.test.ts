import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import * as OutboundHttp from "../../layers/OutboundHttp.ts"
import { redirectLocation } from "../../src/system/RedirectLocation.ts"

/** A loopback server answering HEAD with `status` and a Location, and a Content-Length as a HEAD answer carries. */
const listen = (status: number, location: string | undefined) =>
  Effect.acquireRelease(
    Effect.async<Server>((resume) => {
      const server = createServer((req, res) => {
        res.writeHead(status, { ...(location === undefined ? {} : { location }), "content-length": String(5 * 1024 * 1024), "x-method": req.method ?? "" })
        res.end()
      })
      server.listen(0, "127.0.0.1", () => resume(Effect.succeed(server)))
    }),
    (server) => Effect.async<void>((resume) => {
      server.closeAllConnections()
      server.close(() => resume(Effect.void))
    })
  )

const urlOf = (server: Server, path: string) => new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`)

describe("redirect_location through OutboundHttp", () => {
  it.scopedLive("answers the Location of a redirect, resolved against the URL, through the allow-list", () =>
    Effect.gen(function*() {
      const server = yield* listen(302, "/landing?x=1")
      const location = yield* redirectLocation(urlOf(server, "/short")).pipe(Effect.provide(OutboundHttp.layer(["127.0.0.1"])))
      expect(location).toBe(`${urlOf(server, "/landing?x=1")}`)
    }))

  it.scopedLive("answers \"\" for an address the policy refuses, a non-redirect and an unreachable host", () =>
    Effect.gen(function*() {
      const redirecting = yield* listen(301, "https://example.com/")
      expect(yield* redirectLocation(urlOf(redirecting, "/")).pipe(Effect.provide(OutboundHttp.layer([])))).toBe("")
      const plain = yield* listen(200, undefined)
      expect(yield* redirectLocation(urlOf(plain, "/")).pipe(Effect.provide(OutboundHttp.layer(["127.0.0.1"])))).toBe("")
      const memory = yield* OutboundHttp.makeMemory({ allow: [] })
      expect(yield* redirectLocation(new URL("http://nowhere.test/")).pipe(Effect.provide(memory.layer))).toBe("")
    }))
})
