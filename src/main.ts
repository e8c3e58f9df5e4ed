import { NodeRuntime } from "@effect/platform-node"
import { Console, Effect, Exit, Layer, Logger } from "effect"
import * as DbLayer from "../layers/Db.ts"
import * as Migrations from "../layers/Migrations.ts"
import { checkConfig } from "./cli/CheckConfig.ts"
import { HELP } from "./cli/Help.ts"
import { InvalidConfig, loadForStartup } from "./config/Startup.ts"
import { makeServer } from "./Server.ts"

/** The command line: each mode is an Effect program; this file only chooses and composes. */
const withConfiguredLogger = <A, E, R>(program: (level: import("effect").LogLevel.LogLevel) => Effect.Effect<A, E, R>) =>
  Effect.flatMap(loadForStartup, (config) =>
    program(config.logLevel).pipe(Effect.provideService(configTag, config), Logger.withMinimumLogLevel(config.logLevel)))

import { AppConfig as configTag } from "./Config.ts"

const serve = withConfiguredLogger(() =>
  Effect.flatMap(configTag, (config) =>
    Layer.launch(makeServer(config)).pipe(Effect.ensuring(Effect.logInfo("shutdown complete")))))

const migrateOnly = withConfiguredLogger(() =>
  Effect.flatMap(configTag, (config) =>
    Migrations.run.pipe(
      Effect.provide(DbLayer.layer({
        databaseUrl: config.databaseUrl,
        dataDir: config.dataDir,
        maxConnections: 2,
        minConnections: 0
      })),
      Effect.as(0)
    )))

const reportInvalid = <A, R>(program: Effect.Effect<A, unknown, R>) =>
  program.pipe(
    Effect.catchIf((e): e is InvalidConfig => e instanceof InvalidConfig, (e) => Effect.as(Console.error(e.message), 1))
  )

const args = process.argv.slice(2)
const flag = args[0]

const program: Effect.Effect<unknown, unknown> =
  flag === "--help" || flag === "-h"
    ? Effect.as(Console.log(HELP), 0)
    : flag === "--check-config"
    ? checkConfig
    : flag === "--migrate-only"
    ? reportInvalid(migrateOnly)
    : flag === undefined
    ? reportInvalid(serve)
    : Effect.as(Console.error(`unknown flag: ${flag}\n\n${HELP}`), 2)

NodeRuntime.runMain(program.pipe(Effect.provide(Logger.json)), {
  disablePrettyLogger: true,
  teardown: (exit, onExit) => onExit(Exit.isSuccess(exit) && typeof exit.value === "number" ? exit.value : Exit.isSuccess(exit) ? 0 : 1)
})
