import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"

/**
 * A loopback HTTP receiver standing in for an integration: it records every request and answers with what the test
 * routes say for the path (200 with an empty body by default). An answer may be a promise, to hold the request open.
 */
export interface Received {
  readonly path: string
  readonly headers: IncomingMessage["headers"]
  readonly body: string
  readonly at: number
}

export interface Answer {
  readonly status?: number
  readonly json?: unknown
  readonly text?: string
}

export type Route = (request: Received, count: number) => Answer | Promise<Answer>

export const startReceiver = async (host = "127.0.0.1") => {
  const received: Array<Received> = []
  const routes = new Map<string, Route>()
  const open = new Set<ServerResponse>()
  const server = createServer((req, res) => {
    let body = ""
    req.on("data", (c) => (body += String(c)))
    req.on("end", async () => {
      const request: Received = { path: req.url ?? "", headers: req.headers, body, at: Date.now() }
      received.push(request)
      const route = routes.get(request.path)
      open.add(res)
      const answer = route === undefined ? {} : await route(request, received.filter((r) => r.path === request.path).length)
      open.delete(res)
      if (res.destroyed) return
      const payload = answer.json !== undefined ? JSON.stringify(answer.json) : answer.text ?? ""
      res.writeHead(answer.status ?? 200, { "content-type": answer.json !== undefined ? "application/json" : "text/plain" })
      res.end(payload)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, host, resolve))
  const base = `http://${host}:${(server.address() as AddressInfo).port}`
  return {
    base,
    received,
    /** The URL of a path on this receiver, answered by `route`. */
    url: (path: string, route?: Route) => {
      if (route !== undefined) routes.set(path, route)
      return `${base}${path}`
    },
    at: (path: string) => received.filter((r) => r.path === path),
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of open) res.destroy()
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}

export type Receiver = Awaited<ReturnType<typeof startReceiver>>

/** Resolves once `check` holds, polling; fails with `what` after the timeout. */
export const eventually = async <A>(check: () => A | undefined | false | Promise<A | undefined | false>, what: string, timeoutMs = 5000): Promise<A> => {
  const started = Date.now()
  for (;;) {
    const value = await check()
    if (value !== undefined && value !== false) return value
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}
