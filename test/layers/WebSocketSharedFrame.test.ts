import { Effect } from "effect"
import { createServer, type Server } from "node:http"
import type { AddressInfo, Socket } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import WebSocket from "ws"
import { fromNode, layer, type Peer, type PeerHandler, SharedFrame, WebSockets } from "../../layers/WebSocket.ts"

/**
 * One event's frame is written to many sockets from one buffer per digit count, each socket's sequence number put in
 * just before its write (SharedFrame). A socket whose client stopped reading keeps its queued frames: they must
 * still carry that socket's numbers after other sockets' numbers went into the frame, and every frame must be whole.
 */

const acceptor = Effect.runSync(Effect.map(WebSockets, (w) => w.acceptor({ maxPayload: 1 << 20, selectProtocol: () => false })).pipe(
  Effect.provide(layer)
))

let server: Server
const peers: Array<Peer> = []
const waiting: Array<(peer: Peer) => void> = []

beforeAll(async () => {
  server = createServer()
  server.on("upgrade", (request, socket, head) => {
    acceptor.accept(fromNode(request, socket, head), (peer: Peer<PeerHandler>) => {
      const next = waiting.shift()
      if (next !== undefined) next(peer)
      else peers.push(peer)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
})

afterAll(async () => {
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
})

/** A client and the server's peer for it; the client's frames are collected as parsed JSON. */
const connect = async () => {
  const peer = new Promise<Peer>((resolve) => waiting.push(resolve))
  const client = new WebSocket(`ws://127.0.0.1:${(server.address() as AddressInfo).port}/`)
  const frames: Array<{ seq: number; n: number; pad: string }> = []
  client.on("message", (data: Buffer, isBinary: boolean) => {
    expect(isBinary).toBe(false)
    frames.push(JSON.parse(data.toString("utf8")))
  })
  await new Promise((resolve, reject) => {
    client.once("open", resolve)
    client.once("error", reject)
  })
  return { client, peer: await peer, frames }
}

const tcpOf = (client: WebSocket) => (client as unknown as { _socket: Socket })._socket
const serverSocketOf = (peer: Peer) => (peer as unknown as { _socket: Socket })._socket

const until = async (condition: () => boolean, what: string) => {
  const deadline = Date.now() + 10_000
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

describe("a shared frame", () => {
  it("keeps a backed-up socket's queued frames intact while other sockets' numbers are written", async () => {
    const slow = await connect()
    const fast = await connect()
    // The backed-up client reads nothing: once the kernel's buffers are full, its frames queue in the server's socket.
    tcpOf(slow.client).pause()
    const pad = "é".repeat(20_000)
    const events = 400
    let queuedAt = -1
    for (let n = 0; n < events; n++) {
      const frame = new SharedFrame(Buffer.from(`{"n":${n},"pad":"${pad}","seq":`, "utf8"))
      // Numbers of the same width for both sockets, different values: 1000 + n for the slow one, 5000 + n for the other.
      slow.peer.sendShared(frame, 1000 + n)
      if (queuedAt === -1 && serverSocketOf(slow.peer).writableLength > 0) queuedAt = n
      fast.peer.sendShared(frame, 5000 + n)
      // A second socket of the same width after the queued one: it must not get the queued buffer either.
      fast.peer.sendShared(frame, 7000 + n)
    }
    expect(queuedAt, "the slow socket's frames were queued by the server").toBeGreaterThanOrEqual(0)
    expect(queuedAt).toBeLessThan(events - 10)
    tcpOf(slow.client).resume()
    await until(() => slow.frames.length === events && fast.frames.length === 2 * events, "every frame")
    expect(slow.frames.map((f) => [f.n, f.seq])).toEqual(Array.from({ length: events }, (_, n) => [n, 1000 + n]))
    expect(fast.frames.map((f) => [f.n, f.seq])).toEqual(
      Array.from({ length: 2 * events }, (_, i) => [i >> 1, (i % 2 === 0 ? 5000 : 7000) + (i >> 1)])
    )
    expect(slow.frames.every((f) => f.pad === pad)).toBe(true)
    slow.client.close()
    fast.client.close()
  })

  it("frames numbers of any width, and payloads across the 126 and 65,536 byte header sizes", async () => {
    const { client, peer, frames } = await connect()
    const sizes = [0, 100, 120, 124, 125, 126, 200, 65_520, 65_531, 65_535, 65_536, 70_000]
    const seqs = [0, 9, 10, 99, 100, 12_345, 9_007_199_254_740_991]
    const sent: Array<[number, number]> = []
    for (const size of sizes) {
      const frame = new SharedFrame(Buffer.from(`{"n":${size},"pad":"${"x".repeat(size)}","seq":`, "utf8"))
      for (const seq of seqs) {
        peer.sendShared(frame, seq)
        sent.push([size, seq])
      }
    }
    await until(() => frames.length === sent.length, "every frame")
    expect(frames.map((f) => [f.n, f.seq])).toEqual(sent)
    expect(frames.every((f) => f.pad.length === f.n)).toBe(true)
    client.close()
  })
})
