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
import { createHash, randomBytes } from "node:crypto"
import { connect as netConnect, type Socket } from "node:net"
import { parentPort } from "node:worker_threads"

const BATCH_MS = 200
const CONNECT_TIMEOUT_MS = 60_000
const TAG = Buffer.from("lt-")
const POSTED = Buffer.from("\"posted\"")
const GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
const READ_BUFFER = Buffer.allocUnsafe(64 * 1024)

const port = parentPort!
const sockets: Array<Socket> = []
let tags: Array<number> = []
let at: Array<number> = []
let closed = 0

const now = () => performance.timeOrigin + performance.now()

/** The tag is the decimal number after "lt-" in the post's message; found in the raw frame, which is not decoded. */
const onMessage = (raw: Buffer, arrived: number) => {
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

/** A client frame (always masked, RFC 6455 5.3) of a short control payload: the pong to a ping, or a close. */
const controlFrame = (opcode: number, payload: Buffer) => {
  const mask = randomBytes(4)
  const frame = Buffer.allocUnsafe(6 + payload.length)
  frame[0] = 0x80 | opcode
  frame[1] = 0x80 | payload.length
  mask.copy(frame, 2)
  for (let i = 0; i < payload.length; i++) frame[6 + i] = payload[i] ^ mask[i & 3]
  return frame
}

/**
 * One user's socket: the upgrade (RFC 6455 4.1, its accept key checked), then the server's frames. Written here rather
 * than taken from `ws`, which the service uses: at 7,500 users this thread read 25,000 frames a second and was the
 * generator's largest cost (12% of the two cores in a `perf record`, a third of it ws's Receiver, a Writable stream
 * per socket with its callbacks and events), on the cores the service is measured on. A server's frames are unmasked;
 * a ping is answered with a pong, a close ends the socket; fragmented messages are joined.
 */
const connect = (url: URL, token: string) =>
  new Promise<string | undefined>((resolve) => {
    const key = randomBytes(16).toString("base64")
    const accept = createHash("sha1").update(key + GUID).digest("base64")
    // Every read lands in one buffer shared by all the thread's sockets (net's `onread`), which the code below
    // reads synchronously, copying only what it keeps (a partial frame, a fragment): by default Node allocates a
    // 64 KB buffer per read and wraps it in a new Buffer, at 9,000-25,000 reads a second a steady stream of
    // allocations and external memory for this thread's garbage collector (a fifth of the generator's CPU in a
    // `perf record` at 5,000 users).
    const onread = {
      buffer: READ_BUFFER,
      callback: (n: number) => {
        onData(READ_BUFFER.subarray(0, n))
        return true
      }
    }
    const socket = netConnect({ host: url.hostname, port: Number(url.port), noDelay: true, onread })
    let settled = false
    const settle = (failure: string | undefined) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      resolve(failure)
    }
    const timer = setTimeout(() => {
      socket.destroy()
      settle("no hello within 60 s")
    }, CONNECT_TIMEOUT_MS)
    let upgraded = false
    let buffered: Buffer | undefined
    let fragments: Array<Buffer> = []
    socket.on("connect", () => {
      socket.write(
        `GET ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
          `Sec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\nAuthorization: Bearer ${token}\r\n\r\n`
      )
    })
    const onData = (chunk: Buffer) => {
      const arrived = now()
      let data = buffered === undefined ? chunk : Buffer.concat([buffered, chunk])
      buffered = undefined
      if (!upgraded) {
        const end = data.indexOf("\r\n\r\n")
        if (end === -1) {
          buffered = Buffer.from(data)
          return
        }
        const head = data.toString("latin1", 0, end)
        if (!head.startsWith("HTTP/1.1 101") || !head.toLowerCase().includes(`sec-websocket-accept: ${accept.toLowerCase()}`)) {
          socket.destroy()
          return settle(head.split("\r\n")[0])
        }
        upgraded = true
        data = data.subarray(end + 4)
      }
      let offset = 0
      while (data.length - offset >= 2) {
        const first = data[offset]
        let length = data[offset + 1] & 0x7f
        let header = 2
        if (length === 126) {
          if (data.length - offset < 4) break
          length = data.readUInt16BE(offset + 2)
          header = 4
        } else if (length === 127) {
          if (data.length - offset < 10) break
          length = data.readUInt32BE(offset + 2) * 2 ** 32 + data.readUInt32BE(offset + 6)
          header = 10
        }
        if (data.length - offset < header + length) break
        const payload = data.subarray(offset + header, offset + header + length)
        offset += header + length
        const opcode = first & 0x0f
        if (opcode === 0x9) socket.write(controlFrame(0xa, payload))
        else if (opcode === 0x8) {
          socket.end(controlFrame(0x8, payload.subarray(0, 2)))
        } else if (opcode === 0x1 || opcode === 0x2 || opcode === 0x0) {
          if ((first & 0x80) === 0) fragments.push(Buffer.from(payload))
          else {
            const message = fragments.length === 0 ? payload : Buffer.concat([...fragments, payload])
            fragments = []
            // The first message is hello: the socket counts as connected once it has one.
            if (!settled) settle(undefined)
            onMessage(message, arrived)
          }
        }
      }
      if (offset < data.length) buffered = Buffer.from(data.subarray(offset))
    }
    socket.on("error", (error) => settle(error.message))
    socket.on("close", () => {
      settle("closed before its hello")
      closed++
    })
    sockets.push(socket)
  })

port.on("message", async (message: { type: string; id?: number; url?: string; tokens?: Array<string> }) => {
  if (message.type === "connect") {
    const failed = (await Promise.all(message.tokens!.map((token) => connect(new URL(message.url!), token)))).filter((f) => f !== undefined)
    port.postMessage({ type: "connected", id: message.id, failed })
  } else if (message.type === "close") {
    for (const socket of sockets) socket.destroy()
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
