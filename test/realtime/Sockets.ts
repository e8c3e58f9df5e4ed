import { WebSocketClient } from "@mattermost/client"
import { expect } from "vitest"
import { WebSocket } from "ws"

/**
 * WebSocket helpers for tests: the official WebSocketClient on Node (which lacks a global WebSocket and
 * CloseEvent), and a raw `ws` socket that records everything the server sends.
 */
class CloseEventPolyfill extends Event {
  readonly code: number
  readonly reason: string
  readonly wasClean: boolean
  constructor(type: string, init: { code?: number; reason?: string; wasClean?: boolean } = {}) {
    super(type)
    this.code = init.code ?? 0
    this.reason = init.reason ?? ""
    this.wasClean = init.wasClean ?? false
  }
}

const globals = globalThis as unknown as Record<string, unknown>
globals.WebSocket ??= WebSocket
globals.CloseEvent ??= CloseEventPolyfill

/**
 * The client narrates its lifecycle on console.log; those lines are kept here (a sequence gap shows up in them), for
 * the current test file only: test files share a worker process (isolation is off, vitest.config.ts), which loads
 * this module once, and one file's gaps (e.g. RedisOutage's, which expects them) are no other file's business.
 */
export const clientLog: Array<string> = []
let clientLogFile: string | undefined
const currentFile = () => expect.getState().testPath
const narration = /^(websocket |got connection id|missed websocket event|long timeout|ping received|network )/
const log = console.log
console.log = (...args: Array<unknown>) => {
  const line = args.map((a) => (typeof a === "object" ? JSON.stringify(a) : String(a))).join(" ")
  const isErrorReply = typeof args[0] === "object" && args[0] !== null && "seq_reply" in args[0]
  if (narration.test(line) || isErrorReply) {
    if (currentFile() !== clientLogFile) {
      clientLog.length = 0
      clientLogFile = currentFile()
    }
    clientLog.push(line)
  } else log(...args)
}
/** Whether any official client of this test file saw a sequence gap (it then closes with 4001 and reconnects). */
export const sawSequenceGap = () =>
  clientLogFile === currentFile() && clientLog.some((l) => l.startsWith("missed websocket event"))

export const wsUrl = (httpUrl: string, path = "/api/v4/websocket") => httpUrl.replace(/^http/, "ws") + path

export interface Frame {
  readonly event?: string
  readonly data?: Record<string, unknown>
  readonly broadcast?: Record<string, unknown>
  readonly seq?: number
  readonly seq_reply?: number
  readonly status?: string
  readonly error?: { id: string }
  readonly [key: string]: unknown
}

/** Resolves once `check` holds, polling; fails with `what` after the timeout. */
export const eventually = async <A>(check: () => A | undefined, what: string, timeoutMs = 5000): Promise<A> => {
  const started = Date.now()
  for (;;) {
    const value = check()
    if (value !== undefined && value !== false) return value
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 10))
  }
}

/** The official client, recording events, closes and sequence gaps (the client closes with 4001 on one). */
export class MattermostSocket {
  readonly client: WebSocketClient
  readonly events: Array<Frame> = []
  readonly closes: Array<number> = []
  readonly missed: Array<number> = []
  private sockets: Array<WebSocket> = []

  /** Every URL the client connected to: reconnects carry connection_id and sequence_number. */
  readonly urls: Array<string> = []

  constructor(
    readonly url: string,
    readonly token: string | undefined,
    options: { readonly headers?: Record<string, string>; readonly retryMs?: number } = {}
  ) {
    this.client = new WebSocketClient({
      newWebSocketFn: (u: string) => {
        this.urls.push(u)
        const ws = new WebSocket(u, { headers: options.headers })
        this.sockets.push(ws)
        return ws as never
      },
      minWebSocketRetryTime: options.retryMs ?? 50,
      reconnectJitterRange: 10,
      clientPingInterval: 60_000
    })
    this.client.addMessageListener((msg) => this.events.push(msg as Frame))
    this.client.addCloseListener(() => this.closes.push(Date.now()))
    this.client.addMissedMessageListener(() => this.missed.push(Date.now()))
  }

  /** Connects and waits for hello (or, when resuming, for the socket to open). */
  async connect(url = this.url) {
    const before = this.sockets.length
    this.client.initialize(url, this.token)
    await eventually(() => this.sockets.length > before && this.sockets[this.sockets.length - 1].readyState === WebSocket.OPEN, "socket open")
  }

  get socket() {
    return this.sockets[this.sockets.length - 1]
  }

  get socketCount() {
    return this.sockets.length
  }

  /** Reconnects to another URL (another node) at once, as a client behind a load balancer would land elsewhere. */
  async moveTo(url: string) {
    this.client.clearReconnectTimeout()
    await this.connect(url)
  }

  /** Waits until the client has reconnected by itself (a socket after `count` is open). */
  reconnected(count: number) {
    return eventually(() => this.sockets.length > count && this.socket.readyState === WebSocket.OPEN, "reconnect")
  }

  /** The events after `from` (an index into events), by name. */
  named(event: string, from = 0) {
    return this.events.slice(from).filter((e) => e.event === event)
  }

  hello() {
    return eventually(() => [...this.events].reverse().find((e) => e.event === "hello"), "hello")
  }

  waitFor(predicate: (e: Frame) => boolean, what: string, timeoutMs?: number) {
    return eventually(() => this.events.find(predicate), what, timeoutMs)
  }

  request<T>(action: string, data: unknown): Promise<Frame & { data: T }> {
    return new Promise((resolve) => this.client.sendMessage(action, data, (msg: unknown) => resolve(msg as Frame & { data: T })))
  }

  /** Drops the TCP connection without a close handshake, as a phone losing its network does. */
  drop() {
    this.socket.terminate()
  }

  close() {
    this.client.close()
    for (const ws of this.sockets) if (ws.readyState === WebSocket.OPEN) ws.terminate()
  }
}

/** A raw socket: every frame the server sends, parsed, plus the close code and reason. */
export class RawSocket {
  readonly frames: Array<Frame> = []
  closed: { code: number; reason: string } | undefined
  opened = false
  unexpected: { status: number; body: string } | undefined
  readonly ws: WebSocket

  /** `autoPong: false` makes a client that never answers the server's pings. */
  constructor(url: string, options: { headers?: Record<string, string>; protocols?: Array<string>; autoPong?: boolean } = {}) {
    this.ws = new WebSocket(url, options.protocols ?? [], { headers: options.headers, autoPong: options.autoPong ?? true })
    this.ws.on("open", () => {
      this.opened = true
    })
    this.ws.on("message", (data) => this.frames.push(JSON.parse(String(data)) as Frame))
    this.ws.on("close", (code, reason) => {
      this.closed = { code, reason: String(reason) }
    })
    this.ws.on("error", () => {})
    this.ws.on("unexpected-response", (_req, res) => {
      let body = ""
      res.on("data", (c) => (body += String(c)))
      res.on("end", () => {
        this.unexpected = { status: res.statusCode ?? 0, body }
      })
    })
  }

  opens() {
    return eventually(() => this.opened || this.unexpected !== undefined || this.closed !== undefined ? true : undefined, "open")
      .then(() => {
        if (!this.opened) throw new Error(`socket refused: ${JSON.stringify(this.unexpected ?? this.closed)}`)
      })
  }

  send(frame: unknown) {
    this.ws.send(typeof frame === "string" ? frame : JSON.stringify(frame))
  }

  waitFor(predicate: (f: Frame) => boolean, what: string, timeoutMs?: number) {
    return eventually(() => this.frames.find(predicate), what, timeoutMs)
  }

  reply(seq: number, timeoutMs?: number) {
    return this.waitFor((f) => f.seq_reply === seq, `reply to ${seq}`, timeoutMs)
  }

  waitClosed(timeoutMs?: number) {
    return eventually(() => this.closed, "close", timeoutMs)
  }

  events() {
    return this.frames.filter((f) => f.event !== undefined)
  }

  close() {
    if (this.ws.readyState === WebSocket.OPEN || this.ws.readyState === WebSocket.CONNECTING) this.ws.terminate()
  }
}

/**
 * A socket for `headers` on `url`, retried until one is admitted: a node learns of another node's closed socket
 * asynchronously, so a freed slot is taken after a moment. `track` receives every attempt, to be closed later.
 */
export const retryUntilAdmitted = async (url: string, headers: Record<string, string>, track: (s: RawSocket) => void) => {
  for (let attempt = 0; attempt < 50; attempt++) {
    const s = new RawSocket(url, { headers })
    track(s)
    const outcome = await eventually(() => s.frames.some((f) => f.event === "hello") ? "admitted" : s.closed ? "refused" : undefined, "admission")
    if (outcome === "admitted") return s
    await new Promise((r) => setTimeout(r, 20))
  }
  throw new Error("never admitted")
}
