import { createServer, type Server, Socket } from "node:net"
import { atFileEnd } from "./Cleanup.ts"

/**
 * A TCP proxy on a loopback port of its own, in front of a real service (Redis, PostgreSQL), that plays the network
 * failures a test needs between one node and that service:
 *
 * - `cut()`: a partition. Every open connection is reset and new ones are reset as soon as they arrive, until `heal()`.
 * - `stall()`: a service that froze (a stopped process, a full disk): connections stay open and new ones are
 *   accepted, but nothing is forwarded either way; what was sent meanwhile is held and delivered on `heal()`, as a
 *   process that wakes up reads what waited in its socket.
 * - `heal()`: back to forwarding.
 *
 * The proxy is closed when the test file ends (or by `close()`).
 */
export interface TcpProxy {
  readonly port: number
  /** `host:port` of the proxy, for a URL. */
  readonly address: string
  readonly cut: () => void
  readonly stall: () => void
  readonly heal: () => void
  /** Connections currently open through the proxy. */
  readonly connections: () => number
  readonly close: () => Promise<void>
}

type Mode = "open" | "cut" | "stalled"

interface Pair {
  readonly client: Socket
  readonly upstream: Socket
  /** Bytes held while stalled, per direction, delivered in order on heal. */
  readonly toUpstream: Array<Buffer>
  readonly toClient: Array<Buffer>
}

export const startTcpProxy = async (target: { readonly host: string; readonly port: number }): Promise<TcpProxy> => {
  let mode: Mode = "open"
  const pairs = new Set<Pair>()

  const drop = (pair: Pair) => {
    pairs.delete(pair)
    pair.client.resetAndDestroy()
    pair.upstream.resetAndDestroy()
  }
  const forward = (pair: Pair, from: Socket, to: Socket, held: Array<Buffer>) =>
    from.on("data", (chunk: Buffer) => {
      if (mode === "stalled" || held.length > 0) held.push(chunk)
      else to.write(chunk)
    })

  const server: Server = createServer((client) => {
    if (mode === "cut") {
      client.resetAndDestroy()
      return
    }
    const upstream = new Socket()
    const pair: Pair = { client, upstream, toUpstream: [], toClient: [] }
    pairs.add(pair)
    client.setNoDelay(true)
    upstream.setNoDelay(true)
    // Bytes the client sends before the upstream connection is up wait in `toUpstream`.
    let connected = false
    client.on("data", (chunk: Buffer) => {
      if (!connected || mode === "stalled" || pair.toUpstream.length > 0) pair.toUpstream.push(chunk)
      else upstream.write(chunk)
    })
    forward(pair, upstream, client, pair.toClient)
    const end = () => {
      if (pairs.has(pair)) drop(pair)
    }
    client.on("error", end).on("close", end)
    upstream.on("error", end).on("close", end)
    upstream.connect(target.port, target.host, () => {
      connected = true
      if (mode === "open") flush(pair)
    })
  })
  const flush = (pair: Pair) => {
    for (const chunk of pair.toUpstream.splice(0)) pair.upstream.write(chunk)
    for (const chunk of pair.toClient.splice(0)) pair.client.write(chunk)
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => resolve())
  })
  const port = (server.address() as { port: number }).port
  let closed: Promise<void> | undefined
  const close = () =>
    closed ??= new Promise<void>((resolve) => {
      for (const pair of [...pairs]) drop(pair)
      server.close(() => resolve())
    })
  atFileEnd(`close the TCP proxy on port ${port}`, close)

  return {
    port,
    address: `127.0.0.1:${port}`,
    cut: () => {
      mode = "cut"
      for (const pair of [...pairs]) drop(pair)
    },
    stall: () => {
      mode = "stalled"
    },
    heal: () => {
      mode = "open"
      for (const pair of pairs) if (pair.upstream.readyState === "open") flush(pair)
    },
    connections: () => pairs.size,
    close
  }
}
