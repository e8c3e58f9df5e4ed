/**
 * The WebSocket side of the load simulation (bench/load.ts), in a worker thread: it opens the users' sockets, answers
 * the service's pings, and notes when each `posted` event of the simulation arrives. At 5,000 users about 8,000
 * frames a second arrive; parsed on the thread that sends the HTTP requests and times their answers, they delayed
 * that thread's event loop, and every request's measured latency with it. Here they cost a core the generator
 * process may take in parallel, and arrivals go back to the main thread in batches, once every BATCH_MS.
 *
 * Messages in: { type: "connect", id, url, tokens: Array<string> } opens one socket per token and answers
 * { type: "connected", id, failed: Array<string> } once each got its hello or failed (CONNECT_TIMEOUT_MS);
 * { type: "close" } terminates every socket. Messages out, besides "connected": { type: "arrivals", tags, at }
 * (the tag of each posted event and its arrival, performance.timeOrigin + performance.now(), in ms) and
 * { type: "closed", count } (sockets closed since the last report).
 */
import { parentPort } from "node:worker_threads"
import WebSocket from "ws"

const BATCH_MS = 200
const CONNECT_TIMEOUT_MS = 60_000
const TAG = Buffer.from("lt-")
const POSTED = Buffer.from("\"posted\"")

const port = parentPort!
const sockets: Array<WebSocket> = []
let tags: Array<number> = []
let at: Array<number> = []
let closed = 0

const now = () => performance.timeOrigin + performance.now()

/** The tag is the decimal number after "lt-" in the post's message; found in the raw frame, which is not decoded. */
const onMessage = (raw: Buffer) => {
  const arrived = now()
  const i = raw.indexOf(TAG)
  if (i === -1 || raw.indexOf(POSTED) === -1) return
  let tag = 0
  for (let j = i + 3; j < raw.length; j++) {
    const digit = raw[j] - 48
    if (digit < 0 || digit > 9) break
    tag = tag * 10 + digit
  }
  tags.push(tag)
  at.push(arrived)
}

const connect = (url: string, token: string) =>
  new Promise<string | undefined>((resolve) => {
    // No compression (the service offers none) and no UTF-8 check of every frame: the generator reads two markers.
    const ws = new WebSocket(url, { headers: { Authorization: `Bearer ${token}` }, perMessageDeflate: false, skipUTF8Validation: true })
    const timer = setTimeout(() => {
      ws.terminate()
      resolve("no hello within 60 s")
    }, CONNECT_TIMEOUT_MS)
    ws.once("message", () => {
      clearTimeout(timer)
      resolve(undefined)
    })
    ws.on("message", onMessage)
    ws.on("error", (error) => {
      clearTimeout(timer)
      resolve(error.message)
    })
    ws.on("close", () => closed++)
    sockets.push(ws)
  })

port.on("message", async (message: { type: string; id?: number; url?: string; tokens?: Array<string> }) => {
  if (message.type === "connect") {
    const failed = (await Promise.all(message.tokens!.map((token) => connect(message.url!, token)))).filter((f) => f !== undefined)
    port.postMessage({ type: "connected", id: message.id, failed })
  } else if (message.type === "close") {
    for (const ws of sockets) ws.terminate()
    port.postMessage({ type: "closing" })
  }
})

setInterval(() => {
  if (tags.length > 0) {
    port.postMessage({ type: "arrivals", tags: Float64Array.from(tags), at: Float64Array.from(at) })
    tags = []
    at = []
  }
  if (closed > 0) {
    port.postMessage({ type: "closed", count: closed })
    closed = 0
  }
}, BATCH_MS)
