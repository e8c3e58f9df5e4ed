import { connect, createServer, type Socket } from "node:net"

/**
 * A loopback load balancer, as operators put in front of several nodes (a fake of an external service): it checks
 * each backend's `/api/v1/health/ready` every `checkMs` and hands each new TCP connection to the next ready backend,
 * round robin, piping bytes both ways (HTTP keep-alive connections and WebSockets stay on their backend). A backend
 * whose readiness stops answering 200 gets no new connections; those it has carry on until either side closes.
 */
export interface Balancer {
  readonly url: string
  /** Replaces the backends (base URLs); a new one gets connections once its readiness answered 200. */
  readonly setBackends: (urls: ReadonlyArray<string>) => void
  /** Resolves once `url` is ready in the balancer's eyes (or not, with `ready: false`). */
  readonly waitFor: (url: string, ready: boolean, timeoutMs?: number) => Promise<void>
  readonly close: () => Promise<void>
}

export const startBalancer = async (backends: ReadonlyArray<string>, checkMs = 100): Promise<Balancer> => {
  let pool = backends.map((url) => ({ url, ready: false }))
  let turn = 0
  const open = new Set<Socket>()
  const track = (socket: Socket) => {
    open.add(socket)
    socket.once("close", () => open.delete(socket))
    socket.on("error", () => socket.destroy())
  }
  const server = createServer((client) => {
    track(client)
    const ready = pool.filter((b) => b.ready)
    if (ready.length === 0) return void client.destroy()
    const target = new URL(ready[turn++ % ready.length].url)
    const upstream = connect(Number(target.port), target.hostname)
    track(upstream)
    client.pipe(upstream).pipe(client)
    client.once("close", () => upstream.destroy())
    upstream.once("close", () => client.destroy())
  })
  let running = true
  const checks = (async () => {
    while (running) {
      await Promise.all(pool.map(async (backend) => {
        backend.ready = await fetch(`${backend.url}/api/v1/health/ready`, { signal: AbortSignal.timeout(1_000) })
          .then((r) => r.status === 200, () => false)
      }))
      await new Promise((resolve) => setTimeout(resolve, checkMs))
    }
  })()
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const address = server.address()
  if (address === null || typeof address === "string") throw new Error("no port")
  return {
    url: `http://127.0.0.1:${address.port}`,
    setBackends: (urls) => {
      pool = urls.map((url) => pool.find((b) => b.url === url) ?? { url, ready: false })
    },
    waitFor: async (url, ready, timeoutMs = 30_000) => {
      const started = Date.now()
      while (pool.find((b) => b.url === url)?.ready !== ready) {
        if (Date.now() - started > timeoutMs) throw new Error(`${url} not ${ready ? "ready" : "unready"} within ${timeoutMs} ms`)
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
    },
    close: async () => {
      running = false
      await checks
      for (const socket of open) socket.destroy()
      await new Promise((resolve) => server.close(resolve))
    }
  }
}
