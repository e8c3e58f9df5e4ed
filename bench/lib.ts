/**
 * What the benchmarks share: a scratch database on the machine's PostgreSQL, the service started as a child process
 * (as production runs it: `node --import tsx src/main.ts`), bare baselines in child processes, wrk, and process
 * readings (CPU and RSS from /proc).
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { Effect, Redacted } from "effect"
import { Redis } from "ioredis"
import pg from "pg"
import { newId } from "../layers/Crypto.ts"
import { makeTokens } from "../src/auth/Tokens.ts"

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..")
export const ADMIN_URL = process.env.BENCH_PG_URL ?? "postgres://postgres@127.0.0.1:5432/postgres"

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms))

export const percentile = (sorted: ReadonlyArray<number>, p: number) =>
  sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]

export const median = (values: ReadonlyArray<number>) => percentile([...values].sort((a, b) => a - b), 50)

/** A scratch database, dropped by `drop`. */
export const scratchDatabase = async () => {
  const name = `bench_${randomBytes(4).toString("hex")}`
  const admin = new pg.Client({ connectionString: ADMIN_URL })
  await admin.connect()
  await admin.query(`CREATE DATABASE ${name}`)
  await admin.end()
  const url = new URL(ADMIN_URL)
  url.pathname = `/${name}`
  return {
    name,
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: ADMIN_URL })
      await client.connect()
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      await client.end()
    }
  }
}

/** A free loopback port (there is a small window before the child binds it; nothing else here races for ports). */
export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer()
    server.on("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as { port: number }).port
      server.close(() => resolve(port))
    })
  })

const waitForHttp = async (url: string, child: ChildProcess, what: string) => {
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null) throw new Error(`${what} exited with code ${child.exitCode} before answering`)
    try {
      const res = await fetch(url)
      await res.arrayBuffer()
      if (res.status < 500) return
    } catch {
      // not listening yet
    }
    await sleep(100)
  }
  throw new Error(`${what} did not answer ${url} within 60 s`)
}

export interface Running {
  readonly url: string
  readonly port: number
  readonly pid: number
  readonly stop: () => Promise<void>
}

const stopChild = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null) return resolve()
    // A service with open sockets waits up to 10 s for other nodes to take them over before it exits (and writes its
    // --cpu-prof profile): give it longer than that.
    const timer = setTimeout(() => child.kill("SIGKILL"), 30_000)
    child.once("exit", () => {
      clearTimeout(timer)
      resolve()
    })
    child.kill("SIGTERM")
  })

export const JWT_SECRET = process.env.BENCH_JWT_SECRET ?? randomBytes(36).toString("base64")
const ENCRYPTION_KEY = randomBytes(36).toString("base64")

/**
 * The service as production starts it, on `databaseUrl`, with the default log level (one JSON line per request,
 * written to /dev/null here) unless BENCH_LOG_LEVEL says otherwise. Rate limits are off: every client is 127.0.0.1.
 */
/**
 * BENCH_WORKERS=N (default 1) runs the service as N worker processes (SERVICE_WORKERS), which needs Redis:
 * BENCH_REDIS_URL, by default database 9 of the machine's Redis, emptied first so no earlier run's keys count.
 * BENCH_WORKERS=auto passes SERVICE_WORKERS=auto on Redis likewise: the service runs one worker per core (the bench
 * always gives it PostgreSQL). BENCH_WORKERS=split passes SERVICE_WORKERS=split: one worker for HTTP, one for sockets.
 */
const workerEnv = async (): Promise<Record<string, string>> => {
  const setting = (process.env.BENCH_WORKERS ?? "1").trim().toLowerCase()
  const workers = setting === "auto" || setting === "split" ? setting : Number(setting)
  if (typeof workers === "number" && !(workers > 1)) return {}
  const url = process.env.BENCH_REDIS_URL ?? "redis://127.0.0.1:6379/9"
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 })
  await redis.connect()
  await redis.flushdb()
  redis.disconnect()
  return { SERVICE_WORKERS: String(workers), SERVICE_CACHE_URL: url }
}

/** `preload`: a module of this checkout loaded into the service before its entry (bench/CaptureStatements.ts). */
export const startService = async (databaseUrl: string, env: Record<string, string> = {}, root = ROOT, preload?: string): Promise<Running> => {
  const port = await freePort()
  const workers = await workerEnv()
  const dataDir = mkdtempSync(join(tmpdir(), "service-bench-"))
  const nodeArgs = (process.env.BENCH_NODE_ARGS ?? "").split(" ").filter((a) => a !== "")
  // BENCH_SERVICE_ENTRY=dist/main.js runs the production build (`npm run build` first), whose function names survive in
  // a --cpu-prof profile (tsx's do not).
  const entry = process.env.BENCH_SERVICE_ENTRY === undefined ? ["--import", "tsx", "src/main.ts"] : [process.env.BENCH_SERVICE_ENTRY]
  const preloaded = preload === undefined ? [] : ["--import", "tsx", "--import", join(ROOT, preload)]
  const child = spawn(process.execPath, [...nodeArgs, ...preloaded, ...entry], {
    cwd: root,
    // Its own session, as a service runs in production (systemd, a container): Linux's autogroup scheduler shares
    // the CPU between sessions first, so a service in the bench's session would share one session's slice with the
    // load generator, a third of a core when three other sessions compete (docs/performance.md, "Load simulation").
    detached: process.env.BENCH_SAME_SESSION !== "1",
    stdio: ["ignore", process.env.BENCH_SERVICE_LOG === "1" ? "inherit" : "ignore", "inherit"],
    env: {
      ...process.env,
      SERVICE_ENVIRONMENT: "development",
      SERVICE_PORT: String(port),
      SERVICE_HOST: "127.0.0.1",
      SERVICE_DATABASE_URL: databaseUrl,
      SERVICE_DATA_DIR: dataDir,
      SERVICE_JWT_SECRET: JWT_SECRET,
      SERVICE_ENCRYPTION_KEY: ENCRYPTION_KEY,
      SERVICE_SECURITY_RATE_LIMIT_ENABLED: "false",
      // Every simulated user is on loopback, which the connection cap counts as one client.
      SERVICE_SECURITY_MAX_CONNECTIONS_PER_CLIENT: "0",
      SERVICE_LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? "info",
      ...workers,
      ...env
    }
  })
  // A child in its own session is not ended with the bench's terminal: end it when the bench exits or is stopped.
  const orphanGuard = () => child.kill("SIGKILL")
  const stopped = (signal: NodeJS.Signals) => {
    orphanGuard()
    process.kill(process.pid, signal)
  }
  process.once("exit", orphanGuard)
  process.once("SIGINT", stopped)
  process.once("SIGTERM", stopped)
  child.once("exit", () => {
    process.off("exit", orphanGuard)
    process.off("SIGINT", stopped)
    process.off("SIGTERM", stopped)
  })
  const url = `http://127.0.0.1:${port}`
  await waitForHttp(`${url}/api/v1/health/live`, child, "the service")
  return { url, port, pid: child.pid!, stop: () => stopChild(child).then(() => rmSync(dataDir, { recursive: true, force: true })) }
}

/** A bare baseline (bench/bare.ts) in its own process: `kind` is me, page, statement or post. */
export const startBare = async (kind: string, env: Record<string, string>): Promise<Running> => {
  const port = await freePort()
  const child = spawn(process.execPath, ["--import", "tsx", "bench/bare.ts"], {
    cwd: ROOT,
    stdio: ["ignore", "inherit", "inherit"],
    env: { ...process.env, BARE_KIND: kind, BARE_PORT: String(port), ...env }
  })
  const url = `http://127.0.0.1:${port}`
  await waitForHttp(`${url}/ready`, child, `bare ${kind}`)
  return { url, port, pid: child.pid!, stop: () => stopChild(child) }
}

/** A session row and its token, signed as the service signs them (same secret, same claims). */
export const sessionToken = async (client: pg.ClientBase, userId: string, roles = "system_user") => {
  const tokens = makeTokens(Redacted.make(JWT_SECRET))
  const now = Date.now()
  const id = newId()
  await client.query(
    `INSERT INTO sessions (id, user_id, create_at, expires_at, last_activity_at, roles, props) VALUES ($1, $2, $3, $4, $3, $5, $6::jsonb)`,
    [id, userId, now, now + 86_400_000, roles, JSON.stringify({ csrf: newId() })]
  )
  return Effect.runPromise(tokens.sign({ sessionId: id, userId }, now + 86_400_000))
}

/** Many sessions in one statement, tokens signed in process. */
export const sessionTokens = async (client: pg.ClientBase, userIds: ReadonlyArray<string>) => {
  const tokens = makeTokens(Redacted.make(JWT_SECRET))
  const now = Date.now()
  const out: Array<string> = []
  for (let i = 0; i < userIds.length; i += 1000) {
    const batch = userIds.slice(i, i + 1000).map((userId) => ({ id: newId(), userId }))
    await client.query(
      `INSERT INTO sessions (id, user_id, create_at, expires_at, last_activity_at, roles, props)
       SELECT s.id, s.user_id, $3, $4, $3, 'system_user', '{}'::jsonb FROM unnest($1::text[], $2::text[]) AS s(id, user_id)`,
      [batch.map((b) => b.id), batch.map((b) => b.userId), now, now + 86_400_000]
    )
    for (const b of batch) out.push(await Effect.runPromise(tokens.sign({ sessionId: b.id, userId: b.userId }, now + 86_400_000)))
  }
  return out
}

export const wrkPath = (): string => {
  try {
    return execFileSync("sh", ["-c", "command -v wrk"], { encoding: "utf8" }).trim()
  } catch {
    console.error(
      "wrk is not installed. It is the load generator of these benchmarks (a C program: it takes far less CPU than the\n" +
        "servers it drives, which matters on 2 cores). Install it with:\n\n" +
        "  sudo apt-get install -y wrk        # Debian/Ubuntu\n" +
        "  brew install wrk                   # macOS\n"
    )
    process.exit(2)
  }
}

export interface WrkResult {
  readonly requests: number
  readonly rps: number
  readonly p50: number
  readonly p99: number
  readonly errors: number
  readonly non2xx: number
}

const toMs = (value: string, unit: string) => Number(value) * ({ us: 0.001, ms: 1, s: 1000, m: 60000 }[unit] ?? 1)

/** Runs wrk with --latency and reads requests/s, p50, p99 and the errors from its report. */
export const wrk = (
  url: string,
  options: { readonly seconds: number; readonly connections: number; readonly threads: number; readonly script?: string; readonly headers?: ReadonlyArray<string> }
): WrkResult => {
  const args = ["-t", String(options.threads), "-c", String(options.connections), "-d", `${options.seconds}s`, "--latency", "--timeout", "10s"]
  for (const header of options.headers ?? []) args.push("-H", header)
  if (options.script !== undefined) args.push("-s", options.script)
  const out = execFileSync(wrkPath(), [...args, url], { encoding: "utf8" })
  const num = (re: RegExp) => {
    const m = re.exec(out)
    return m ? Number(m[1]) : 0
  }
  const lat = (p: string) => {
    const m = new RegExp(`^\\s*${p}%\\s+([\\d.]+)(us|ms|s|m)`, "m").exec(out)
    return m ? toMs(m[1], m[2]) : Number.NaN
  }
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out)
  return {
    requests: num(/(\d+) requests in/),
    rps: num(/Requests\/sec:\s+([\d.]+)/),
    p50: lat("50"),
    p99: lat("99"),
    errors: socket ? socket.slice(1).reduce((a, b) => a + Number(b), 0) : 0,
    non2xx: num(/Non-2xx or 3xx responses: (\d+)/)
  }
}

const CLOCK_TICKS = 100
const PAGE = 4096

/** CPU seconds (user + system) and resident bytes of one process (or, as "thread-self", of the calling thread's CPU), from /proc. */
export const procReading = (pid: number | "thread-self"): { cpu: number; rss: number } | undefined => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    // After the command: state is fields[0], utime fields[11], stime fields[12], rss fields[21] (pages).
    return { cpu: (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS, rss: Number(fields[21]) * PAGE }
  } catch {
    return undefined
  }
}

/** The process and its descendants (tsx runs the service in a child of the node it starts). */
export const processTree = (pid: number): Array<number> => {
  const children = new Map<number, Array<number>>()
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8")
      const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1])
      children.set(parent, [...(children.get(parent) ?? []), Number(entry)])
    } catch {
      // gone meanwhile
    }
  }
  const out: Array<number> = []
  const walk = (p: number) => {
    out.push(p)
    for (const c of children.get(p) ?? []) walk(c)
  }
  walk(pid)
  return out
}

/**
 * Seconds the process's threads spent runnable but waiting for a core (/proc/PID/task/TID/schedstat, second field,
 * nanoseconds): CPU time a process wanted and did not get. On a shared machine this, not the CPU it used, says
 * whether it was starved.
 */
export const runqueueWait = (pid: number): number => {
  let waited = 0
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        waited += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ")[1]) / 1e9
      } catch {
        // thread gone meanwhile
      }
    }
  } catch {
    // process gone
  }
  return waited
}

export const treeReading = (pids: ReadonlyArray<number>) => {
  let cpu = 0
  let rss = 0
  let wait = 0
  for (const pid of pids) {
    const r = procReading(pid)
    if (r !== undefined) {
      cpu += r.cpu
      rss += r.rss
      wait += runqueueWait(pid)
    }
  }
  return { cpu, rss, wait }
}

/** Load average and what the machine looks like, for the record. */
export const machine = () => {
  const cpuinfo = readFileSync("/proc/cpuinfo", "utf8")
  const model = /model name\s*:\s*(.*)/.exec(cpuinfo)?.[1] ?? "unknown"
  const cores = (cpuinfo.match(/^processor\s*:/gm) ?? []).length
  const load = readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")
  const memGb = Number(/MemTotal:\s+(\d+)/.exec(readFileSync("/proc/meminfo", "utf8"))?.[1] ?? 0) / 1024 / 1024
  return { model, cores, memGb: Math.round(memGb), load, node: process.version }
}

export const ids = (n: number) => Array.from({ length: n }, () => newId())
