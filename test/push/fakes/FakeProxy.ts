import { createServer, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"

/**
 * A loopback Mattermost push proxy: `POST /api/v1/send_push`, answering OK, REMOVE (dead token), FAIL, an HTTP
 * error or nothing at all (a hung provider), per device token.
 */
export interface ProxyPush extends Record<string, unknown> {
  readonly ack_id: string
  readonly platform: string
  readonly server_id: string
  readonly device_id: string
  readonly type: string
  readonly signature: string
}

export type ProxyBehaviour = "remove" | "fail" | "hang" | { readonly status: number; readonly retryAfter?: string; times: number }

export const startFakeProxy = async () => {
  const pushes: Array<ProxyPush> = []
  const behaviours = new Map<string, ProxyBehaviour>()
  const hanging: Array<ServerResponse> = []
  let hangAll = false

  const server = createServer((req, res) => {
    let text = ""
    req.on("data", (c: Buffer) => (text += c.toString("utf8")))
    req.on("end", () => {
      const reply = (status: number, body: unknown, headers: Record<string, string> = {}) => {
        res.writeHead(status, { "content-type": "application/json", ...headers })
        res.end(JSON.stringify(body))
      }
      if (req.method !== "POST" || req.url !== "/api/v1/send_push") return reply(404, { status: "FAIL", error: "not found" })
      const push = JSON.parse(text) as ProxyPush
      const behaviour = behaviours.get(push.device_id)
      if (hangAll || behaviour === "hang") {
        hanging.push(res)
        return
      }
      if (push.server_id === "" || push.device_id === "") return reply(200, { status: "FAIL", error: "missing server or device id" })
      if (typeof behaviour === "object" && behaviour.times > 0) {
        behaviour.times -= 1
        return reply(behaviour.status, { status: "FAIL", error: "busy" }, behaviour.retryAfter !== undefined ? { "retry-after": behaviour.retryAfter } : {})
      }
      pushes.push(push)
      if (behaviour === "remove") return reply(200, { status: "REMOVE" })
      if (behaviour === "fail") return reply(200, { status: "FAIL", error: "rejected" })
      reply(200, { status: "OK" })
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    pushes,
    /** Pushes that reached the proxy but were never answered. */
    hanging,
    behave: (token: string, behaviour: ProxyBehaviour | undefined) => {
      if (behaviour === undefined) behaviours.delete(token)
      else behaviours.set(token, behaviour)
    },
    hangEverything: (on: boolean) => {
      hangAll = on
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of hanging) res.destroy()
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}

export type FakeProxy = Awaited<ReturnType<typeof startFakeProxy>>
