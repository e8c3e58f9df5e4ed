import { createServer, type IncomingMessage, type Server } from "node:http"

/** A loopback HTTP server standing in for an integration: it records every request and answers with `reply`. */
export interface Received {
  readonly method: string
  readonly url: URL
  readonly headers: IncomingMessage["headers"]
  readonly body: string
  /** The form fields, from the body of a POST or the query of a GET. */
  readonly form: URLSearchParams
}

export interface Answer {
  readonly status?: number
  readonly contentType?: string
  readonly body?: string
  /** Milliseconds to wait before answering. */
  readonly delayMs?: number
}

export type Reply = (request: Received) => Answer | Promise<Answer>

export interface Receiver {
  readonly url: string
  readonly received: Array<Received>
  reply: Reply
  readonly close: () => Promise<void>
}

export const json = (body: unknown): Answer => ({ contentType: "application/json", body: JSON.stringify(body) })

export const startReceiver = async (): Promise<Receiver> => {
  const received: Array<Received> = []
  const sockets = new Set<import("node:net").Socket>()
  const state: { reply: Reply } = { reply: () => json({}) }
  const server: Server = createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", async () => {
      const body = Buffer.concat(chunks).toString("utf8")
      const url = new URL(req.url ?? "/", "http://receiver")
      const request = { method: req.method ?? "", url, headers: req.headers, body, form: req.method === "GET" ? url.searchParams : new URLSearchParams(body) }
      received.push(request)
      const answer = await state.reply(request)
      if (answer.delayMs !== undefined) await new Promise((r) => setTimeout(r, answer.delayMs))
      if (res.destroyed) return
      res.writeHead(answer.status ?? 200, { "content-type": answer.contentType ?? "text/plain" })
      res.end(answer.body ?? "")
    })
  })
  server.on("connection", (s) => {
    sockets.add(s)
    s.on("close", () => sockets.delete(s))
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const address = server.address()
  if (address === null || typeof address === "string") throw new Error("expected a TCP address")
  return {
    url: `http://127.0.0.1:${address.port}`,
    received,
    get reply() {
      return state.reply
    },
    set reply(r: Reply) {
      state.reply = r
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy()
        server.close(() => resolve())
      })
  }
}
