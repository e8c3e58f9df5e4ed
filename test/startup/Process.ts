import type { ChildProcessWithoutNullStreams } from "node:child_process"
import { randomBytes } from "node:crypto"
import { existsSync, readFileSync } from "node:fs"
import { request as httpRequest } from "node:http"
import { createServer } from "node:net"
import { join } from "node:path"
import { type Entry, FROM_SOURCE, spawnMain } from "../cli/Cli.ts"

/** The service as an operator runs it: its own process, its own environment, JSON log lines on stdout. */
export interface ServiceProcess {
  readonly child: ChildProcessWithoutNullStreams
  readonly url: string
  /** Every log line so far, parsed. */
  readonly logs: () => ReadonlyArray<LogLine>
  readonly output: () => string
  readonly exited: Promise<number | null>
}

export interface LogLine {
  readonly message: unknown
  readonly logLevel: string
  readonly annotations: Record<string, unknown>
}

export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      server.close(() => typeof address === "object" && address !== null ? resolve(address.port) : reject(new Error("no port")))
    })
  })

export const startProcess = (vars: Record<string, string>, entry: Entry = FROM_SOURCE): ServiceProcess => {
  const { child, written } = spawnMain([], vars, entry)
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)))
  const logs = () =>
    written.stdout.split("\n").flatMap((line) => {
      try {
        return [JSON.parse(line) as LogLine]
      } catch {
        return []
      }
    })
  return { child, url: `http://127.0.0.1:${vars.SERVICE_PORT}`, logs, output: () => written.stdout + written.stderr, exited }
}

/** Polls until the URL answers 200, or fails with the process output after the deadline. */
export const waitUntilLive = async (service: ServiceProcess, deadlineMs: number) => {
  const started = Date.now()
  let exitCode: number | null | undefined
  void service.exited.then((code) => (exitCode = code))
  while (Date.now() - started < deadlineMs) {
    if (exitCode !== undefined) throw new Error(`the service exited with ${exitCode}:\n${service.output()}`)
    const ok = await fetch(`${service.url}/api/v1/health/live`, { signal: AbortSignal.timeout(2_000) }).then((r) => r.ok, () => false)
    if (ok) return Date.now() - started
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`/api/v1/health/live did not answer within ${deadlineMs} ms:\n${service.output()}`)
}

/** SIGTERM, then the exit code; SIGKILL (and the embedded PostgreSQL it leaves) only if it hangs. */
export const stop = async (service: ServiceProcess, dataDir: string, timeoutMs = 30_000) => {
  if (service.child.exitCode !== null) return service.child.exitCode
  service.child.kill("SIGTERM")
  const code = await Promise.race([service.exited, new Promise<"hung">((resolve) => setTimeout(() => resolve("hung"), timeoutMs))])
  if (code !== "hung") return code
  service.child.kill("SIGKILL")
  const pidFile = join(dataDir, "postgres", "postmaster.pid")
  if (existsSync(pidFile)) process.kill(Number(readFileSync(pidFile, "utf8").split("\n")[0]), "SIGTERM")
  throw new Error(`the service did not stop within ${timeoutMs} ms of SIGTERM:\n${service.output()}`)
}

/**
 * A POST whose headers are sent now and whose body is sent by `finish`: a request the server has accepted and is still
 * reading, to see whether a shutdown lets it complete.
 */
export const requestInFlight = (url: string, path: string, json: unknown) => {
  const body = JSON.stringify(json)
  const target = new URL(path, url)
  const request = httpRequest({
    hostname: target.hostname,
    port: target.port,
    path: target.pathname,
    method: "POST",
    agent: false,
    headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) }
  })
  const response = new Promise<{ readonly status: number | undefined; readonly body: string }>((resolve, reject) => {
    request.on("response", (res) => {
      let text = ""
      res.on("data", (d) => (text += d))
      res.on("end", () => resolve({ status: res.statusCode, body: text }))
    })
    request.on("error", reject)
  })
  request.write(body.slice(0, 5))
  return { response, finish: () => request.end(body.slice(5)) }
}

/** Resolves once the service refuses new connections. */
export const waitUntilRefusing = async (service: ServiceProcess, deadlineMs: number) => {
  const started = Date.now()
  while (Date.now() - started < deadlineMs) {
    const answered = await fetch(`${service.url}/api/v1/health/live`, { signal: AbortSignal.timeout(1_000) }).then(() => true, () => false)
    if (!answered) return
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`the service still accepted connections ${deadlineMs} ms after SIGTERM`)
}

/**
 * Resolves once the service has `count` requests in flight besides the metrics scrape that reads the figure
 * (service_http_requests_in_flight counts from the request's headers to the end of its response).
 */
export const waitUntilInFlight = async (service: ServiceProcess, count: number, deadlineMs = 10_000) => {
  const started = Date.now()
  let seen = -1
  while (Date.now() - started < deadlineMs) {
    const text = await fetch(`${service.url}/api/v1/health/metrics`, { signal: AbortSignal.timeout(2_000) }).then((r) => r.text(), () => "")
    seen = Number(/^service_http_requests_in_flight (\d+)$/m.exec(text)?.[1] ?? -1) - 1
    if (seen >= count) return
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  throw new Error(`${seen} requests in flight (besides the scrape), not ${count}, ${deadlineMs} ms on:\n${service.output()}`)
}

/**
 * What the nodes of one cluster share: one database, one Redis and the secrets; the per-address limits raised, since
 * every test client is on loopback and counted in that Redis as one client.
 */
export const clusterEnv = (databaseUrl: string, cacheUrl: string): Record<string, string> => ({
  SERVICE_DATABASE_URL: databaseUrl,
  SERVICE_CACHE_URL: cacheUrl,
  SERVICE_JWT_SECRET: randomBytes(48).toString("base64"),
  SERVICE_ENCRYPTION_KEY: randomBytes(48).toString("base64"),
  SERVICE_SECURITY_RATE_LIMIT_AUTH_PER_MINUTE: "100000",
  SERVICE_SECURITY_RATE_LIMIT_WS_PER_MINUTE: "100000"
})
