import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Cause, Console, Effect, Exit, Layer, Logger } from "effect"
import cluster from "node:cluster"
import { checkConfig } from "./cli/CheckConfig.ts"
import { ADMIN_COMMANDS, HELP, TRANSFER_FLAGS } from "./cli/Help.ts"
import type { ResolvedConfig } from "./Config.ts"
import { InvalidConfig, loadForStartup } from "./config/Startup.ts"
import * as JsonLogger from "./system/JsonLogger.ts"

/**
 * The command line: each mode is an Effect program; this file only chooses and composes. The server's modules (every
 * feature, native bindings) are imported only by the modes that need them, so that --help and --check-config answer
 * at once.
 */
const withConfig = <A, E, R>(program: (config: ResolvedConfig) => Effect.Effect<A, E, R>) =>
  Effect.flatMap(loadForStartup, (config) => program(config).pipe(Logger.withMinimumLogLevel(config.logLevel)))

/**
 * A stop that takes longer than SERVICE_SHUTDOWN_DEADLINE_MS after SIGTERM/SIGINT (socket handover, requests in
 * flight, releasing connections) ends the process with exit code 1 rather than leaving an orchestrator waiting.
 */
const armShutdownDeadline = (deadlineMs: number) =>
  Effect.sync(() => {
    for (const signal of ["SIGTERM", "SIGINT"] as const) {
      process.once(signal, () => {
        setTimeout(() => {
          console.log(JSON.stringify({ message: `shutdown took longer than ${deadlineMs} ms: exiting`, logLevel: "ERROR" }))
          process.exit(1)
        }, deadlineMs).unref()
      })
    }
  })

/**
 * A worker of SERVICE_WORKERS gets a stop signal twice when a service manager signals the whole process group and the
 * supervisor forwards it: the second must not take the default action (exit at once, mid-stop). If the supervisor
 * dies, the channel to it closes and Node ends the worker; an error writing to that channel is not a crash.
 */
const workerSignals = () => {
  for (const signal of ["SIGTERM", "SIGINT"] as const) process.on(signal, () => {})
  cluster.worker?.on("error", () => {})
}

const serveHere = (config: ResolvedConfig) =>
  Effect.gen(function*() {
    yield* armShutdownDeadline(config.shutdownDeadlineMs)
    if (cluster.isWorker) yield* Effect.sync(workerSignals)
    const HttpServer = yield* Effect.promise(() => import("@effect/platform/HttpServer"))
    const { makeServer } = yield* Effect.promise(() => import("./Server.ts"))
    return yield* Layer.launch(HttpServer.withLogAddress(makeServer(config)))
  }).pipe(Effect.ensuring(Effect.logInfo("shutdown complete")))

/** SERVICE_WORKERS=auto's or split's choice and why, logged once by the first process (the workers resolve it the same way). */
const logWorkersChoice = (config: ResolvedConfig) =>
  (config.workersSetting === "auto" || config.workersSetting === "split") && cluster.isPrimary
    ? Effect.logInfo(config.workersReason).pipe(Effect.annotateLogs({ workers: config.workers }))
    : Effect.void

/** The server in this process, or (SERVICE_WORKERS > 1, in the first process) the supervisor of its workers. */
const serve = withConfig((config) =>
  Effect.zipRight(
    logWorkersChoice(config),
    config.workers > 1 && cluster.isPrimary
      ? Effect.flatMap(Effect.promise(() => import("./cli/Cluster.ts")), (Cluster) => Cluster.supervise(config))
      : serveHere(config)
  ))

const migrateOnly = withConfig((config) =>
  Effect.gen(function*() {
    const DbLayer = yield* Effect.promise(() => import("../layers/Db.ts"))
    const Migrations = yield* Effect.promise(() => import("../layers/Migrations.ts"))
    yield* Migrations.run.pipe(
      Effect.provide(DbLayer.layer({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, maxConnections: 2, minConnections: 0 }))
    )
    return 0
  }))

const reportInvalid = <A, E, R>(program: Effect.Effect<A, E, R>) =>
  program.pipe(
    Effect.catchIf((e): e is Extract<E, InvalidConfig> => e instanceof InvalidConfig, (e) => Effect.as(Console.error(e.message), 1))
  )

const flag = process.argv[2]

/** An admin command (`user create …`); its module and the server's layers load only then. */
const admin = Effect.flatMap(
  Effect.promise(() => import("./cli/Admin.ts")),
  (Admin) => reportInvalid(Admin.runAdmin(process.argv.slice(2), withConfig))
)

/** --import / --export (Mattermost bulk format); the importer loads only then. */
const transfer = Effect.flatMap(
  Effect.promise(() => import("./cli/Transfer.ts")),
  (Transfer) => reportInvalid(Transfer.runTransfer(process.argv.slice(2), withConfig))
)

const program: Effect.Effect<unknown, unknown> = flag === "--help" || flag === "-h"
  ? Effect.as(Console.log(HELP), 0)
  : flag === "--check-config"
  ? checkConfig
  : flag === "--migrate-only"
  ? reportInvalid(migrateOnly)
  : flag === undefined
  ? reportInvalid(serve)
  : ADMIN_COMMANDS.includes(flag)
  ? admin
  : TRANSFER_FLAGS.includes(flag)
  ? transfer
  : Effect.as(Console.error(`unknown flag: ${flag}\n\n${HELP}`), 2)

/** A mode's number is its exit code; a signal's interruption is a clean stop (0); any other failure is 1. */
const exitCode = (exit: Exit.Exit<unknown, unknown>) =>
  Exit.match(exit, {
    onSuccess: (value) => typeof value === "number" ? value : 0,
    onFailure: (cause) => Cause.isInterruptedOnly(cause) ? 0 : 1
  })

/** Failures are logged here, as JSON like every other line, rather than by runMain's plain-text reporter. */
const logFailure = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.tapErrorCause(effect, (cause) => Cause.isInterruptedOnly(cause) ? Effect.void : Effect.logFatal("the service stopped on an error", cause))

/** JSON log lines on stdout (batched); an admin command, import or export keeps stdout for its answer and logs on stderr. */
const logger = flag !== undefined && (ADMIN_COMMANDS.includes(flag) || TRANSFER_FLAGS.includes(flag))
  ? Logger.replace(Logger.defaultLogger, Logger.withConsoleError(Logger.jsonLogger))
  : JsonLogger.layer

NodeRuntime.runMain(program.pipe(logFailure, Effect.provide(logger)), {
  disablePrettyLogger: true,
  disableErrorReporting: true,
  teardown: (exit, onExit) => onExit(exitCode(exit))
})
