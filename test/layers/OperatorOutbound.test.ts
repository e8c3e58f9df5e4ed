import { Effect, Redacted } from "effect"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as IdP from "../../layers/IdP.ts"
import { asFetch, makeLive, makeMemory, makeOperator, type OutboundHttpService, type OutboundRequest } from "../../layers/OutboundHttp.ts"
import { type FakeOidc, startFakeOidc } from "../sso/support/FakeOidc.ts"

/**
 * Destinations the operator configures (identity providers here) are called through OutboundHttp like any other:
 * the IdP layer's own requests and openid-client's (its customFetch) alike, with the operator's address policy, so
 * that a provider on loopback is reached.
 */

/** The operator's client, noting each request's method and URL. */
const recording = Effect.map(makeOperator(), (http) => {
  const seen: Array<string> = []
  const service: OutboundHttpService = {
    request: (request: OutboundRequest) => {
      seen.push(`${request.method ?? "GET"} ${request.url}`)
      return http.request(request)
    }
  }
  return { seen, service }
})

describe("identity provider requests", () => {
  let op: FakeOidc
  beforeAll(async () => {
    op = await startFakeOidc({ redirectUris: ["http://chat.test/oauth/callback"] })
  })
  afterAll(() => op.close())

  it("go through OutboundHttp, openid-client's included, and reach a provider on loopback", async () => {
    const { seen, service } = await Effect.runPromise(recording)
    const idp = await Effect.runPromise(IdP.make({ allowInsecureRequests: true, timeoutSeconds: 2, http: service }))
    const probe = await Effect.runPromise(idp.oidcProbe(op.issuer))
    expect(probe._tag).toBe("Ok")
    expect(seen).toContain(`GET ${IdP.wellKnownUrl(op.issuer)}`)
    const client: IdP.OidcClient = {
      providerId: "p1",
      providerKey: "local",
      issuerUrl: op.issuer,
      clientId: op.clientId,
      clientSecret: Redacted.make(op.clientSecret)
    }
    const url = await Effect.runPromise(idp.oidcAuthorizationUrl(client, { redirect_uri: "http://chat.test/oauth/callback", scope: "openid" }))
    expect(url.origin).toBe(op.issuer)
    // An unknown access token: openid-client's userinfo request is made (through OutboundHttp) and refused.
    const before = seen.length
    const refused = await Effect.runPromise(Effect.flip(idp.oidcUserInfo(client, "not-a-token", "someone")))
    expect(refused).toMatchObject({ _tag: "IdPError", kind: "rejected" })
    expect(seen.slice(before).some((s) => s.startsWith("GET ") && s.includes(op.issuer))).toBe(true)
  })
})

describe("asFetch", () => {
  it("fails as fetch does: a refused address with a TypeError, a timeout with a TimeoutError, and answers as a Response", async () => {
    const memory = await Effect.runPromise(makeMemory({ allow: ["127.0.0.1"] }))
    memory.serve("http://127.0.0.1:4000", (request) =>
      request.url.endsWith("/slow")
        ? Effect.never
        : Effect.succeed({ status: 201, headers: { "content-type": "application/json" }, body: JSON.stringify({ method: request.method, body: request.body }) }))
    const fetch = asFetch(memory.service, { timeout: "200 millis" })
    const answer = await fetch("http://127.0.0.1:4000/x", { method: "POST", body: new URLSearchParams({ a: "1" }) })
    expect(answer.status).toBe(201)
    expect(await answer.json()).toEqual({ method: "POST", body: "a=1" })
    await expect(fetch("http://10.0.0.1/x")).rejects.toBeInstanceOf(TypeError)
    await expect(fetch("http://127.0.0.1:4000/slow")).rejects.toMatchObject({ name: "TimeoutError" })
  })
})

describe("connections to the operator's destinations", () => {
  it("are reused (a push costs no new handshake), while calls on a user's behalf open one per call", async () => {
    let connections = 0
    const server = createServer((_req, res) => res.end("{}"))
    server.on("connection", () => connections++)
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/x`
    try {
      const operator = await Effect.runPromise(makeOperator())
      for (let i = 0; i < 3; i++) expect((await Effect.runPromise(operator.request({ url }))).status).toBe(200)
      expect(connections).toBe(1)
      const onBehalf = await Effect.runPromise(makeLive({ allow: ["127.0.0.1"] }))
      for (let i = 0; i < 2; i++) expect((await Effect.runPromise(onBehalf.request({ url }))).status).toBe(200)
      expect(connections).toBe(3)
    } finally {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    }
  })
})

describe("the breaker per destination", () => {
  const failuresOf = (breakerPerDestination: boolean | undefined) =>
    Effect.gen(function*() {
      const memory = yield* makeMemory({ allow: ["127.0.0.1"], breakerPerDestination })
      const tags: Array<string> = []
      for (let i = 0; i < 8; i++) tags.push((yield* Effect.flip(memory.service.request({ url: "http://127.0.0.1:4001/down" })))._tag)
      return tags
    })

  it("opens after five unanswered calls, so that the next ones fail fast", async () => {
    const tags = await Effect.runPromise(failuresOf(undefined))
    expect(tags.slice(0, 5)).toEqual(Array(5).fill("OutboundUnreachable"))
    expect(tags.slice(5)).toEqual(Array(3).fill("CircuitOpenError"))
  })

  it("is off for a caller that keeps its own (IdP per provider, PushSender per transport): every call is tried", async () => {
    expect(await Effect.runPromise(failuresOf(false))).toEqual(Array(8).fill("OutboundUnreachable"))
  })
})
