import { Config, Console, Effect, Layer, Logger, LogLevel, Option } from "effect"
import { parseArgs, type ParseArgsConfig } from "node:util"
import * as OutboundHttp from "../../layers/OutboundHttp.ts"
import * as Commands from "../admin/Commands.ts"
import type { ResolvedConfig } from "../Config.ts"
import { adminLayers } from "../Composition.ts"

/**
 * The admin commands (`node dist/main.js user create …`, mmctl-like): arguments parsed with node:util's parseArgs,
 * each command an Effect program of src/admin/Commands.ts over the server's own layers (database, cache and event
 * bus from the same SERVICE_* configuration, pending migrations applied first). Exit codes: 0 done, 1 refused or
 * failed (the reason on stderr), 2 a usage error.
 */
type Options = NonNullable<ParseArgsConfig["options"]>
type Values = Record<string, string | boolean | undefined>

interface Command {
  readonly words: ReadonlyArray<string>
  readonly args: string
  readonly options: Options
  /** How many positional arguments: [min, max]. */
  readonly positionals: readonly [number, number]
  /** Whether it runs over the database (most do); `health` only asks a running server. */
  readonly database: boolean
  readonly run: (values: Values, positionals: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<string>, unknown, any>
}

const password: Options = { password: { type: "string" }, "password-stdin": { type: "boolean" } }

export const COMMANDS: ReadonlyArray<Command> = [
  {
    words: ["user", "create"],
    args: "--username NAME --email EMAIL (--password PASSWORD | --password-stdin) [--system-admin] [--first-name F] [--last-name L]",
    options: { username: { type: "string" }, email: { type: "string" }, ...password, "system-admin": { type: "boolean" }, "first-name": { type: "string" }, "last-name": { type: "string" } },
    positionals: [0, 0],
    database: true,
    run: (v) =>
      Effect.gen(function*() {
        const username = yield* required(v, "username")
        const email = yield* required(v, "email")
        return yield* Commands.createUser({
          username,
          email,
          password: yield* readPassword(v),
          systemAdmin: v["system-admin"] === true,
          firstName: String(v["first-name"] ?? ""),
          lastName: String(v["last-name"] ?? "")
        })
      })
  },
  { words: ["user", "make-admin"], args: "USER", options: {}, positionals: [1, 1], database: true, run: (_, [u]) => Commands.setSystemAdmin(u, true) },
  { words: ["user", "remove-admin"], args: "USER", options: {}, positionals: [1, 1], database: true, run: (_, [u]) => Commands.setSystemAdmin(u, false) },
  {
    words: ["user", "reset-password"],
    args: "USER (--password PASSWORD | --password-stdin)",
    options: password,
    positionals: [1, 1],
    database: true,
    run: (v, [u]) => Effect.flatMap(readPassword(v), (p) => Commands.resetPassword(u, p))
  },
  { words: ["user", "deactivate"], args: "USER", options: {}, positionals: [1, 1], database: true, run: (_, [u]) => Commands.deactivate(u) },
  { words: ["session", "list"], args: "USER", options: {}, positionals: [1, 1], database: true, run: (_, [u]) => Commands.listSessions(u) },
  {
    words: ["session", "revoke"],
    args: "USER [SESSION_ID]",
    options: {},
    positionals: [1, 2],
    database: true,
    run: (_, [u, s]) => Commands.revokeSessions(u, Option.fromNullable(s))
  },
  {
    words: ["team", "create"],
    args: "--name NAME --display-name DISPLAY [--private]",
    options: { name: { type: "string" }, "display-name": { type: "string" }, private: { type: "boolean" } },
    positionals: [0, 0],
    database: true,
    run: (v) =>
      Effect.gen(function*() {
        const name = yield* required(v, "name")
        const displayName = yield* required(v, "display-name")
        return yield* Commands.createTeam({ name, displayName, private: v.private === true })
      })
  },
  { words: ["team", "add"], args: "TEAM USER [USER…]", options: {}, positionals: [2, 100], database: true, run: (_, [t, ...us]) => Commands.addToTeam(t, us) },
  { words: ["secret", "rotate-jwt"], args: "", options: {}, positionals: [0, 0], database: true, run: () => Commands.rotateJwtSecret },
  {
    words: ["secret", "rotate-encryption-key"],
    args: "(new key in SERVICE_NEW_ENCRYPTION_KEY)",
    options: {},
    positionals: [0, 0],
    database: true,
    run: () => Effect.flatMap(Config.option(Config.redacted("SERVICE_NEW_ENCRYPTION_KEY")), Commands.rotateEncryptionKey)
  },
  {
    words: ["health"],
    args: "[--url URL]",
    options: { url: { type: "string" } },
    positionals: [0, 0],
    database: false,
    run: (v) =>
      Effect.flatMap(
        Config.integer("SERVICE_PORT").pipe(Config.withDefault(3000)),
        (port) => Commands.health(typeof v.url === "string" ? v.url : `http://127.0.0.1:${port}`)
      ).pipe(Effect.provide(OutboundHttp.layerOperator))
  }
]

export const isAdminCommand = (word: string | undefined) => COMMANDS.some((c) => c.words[0] === word)

export const usageLines = COMMANDS.map((c) => `  ${[...c.words, c.args].filter((s) => s !== "").join(" ")}`)

class UsageError {
  readonly _tag = "UsageError"
  constructor(readonly message: string) {}
}

const required = (v: Values, name: string) =>
  typeof v[name] === "string" && v[name] !== "" ? Effect.succeed(v[name] as string) : Effect.fail(new UsageError(`--${name} is required`))

/** --password, or the first line of stdin with --password-stdin (arguments are visible to other users of the machine). */
const readPassword = (v: Values) =>
  v["password-stdin"] === true
    ? Effect.promise(async () => {
      let text = ""
      for await (const chunk of process.stdin) text += chunk
      return text.split(/\r?\n/)[0]
    })
    : required(v, "password")


/** Only warnings and errors are logged (on stderr: main.ts), so that stdout holds the command's answer alone. */
const quietLogs = <A, E, R>(effect: Effect.Effect<A, E, R>, level: LogLevel.LogLevel) =>
  Logger.withMinimumLogLevel(effect, LogLevel.greaterThan(level, LogLevel.Warning) ? level : LogLevel.Warning)

/** Runs the command in argv; its number is the exit code. `withConfig` loads the configuration as the server does. */
export const runAdmin = (
  argv: ReadonlyArray<string>,
  withConfig: <A, E, R>(program: (config: ResolvedConfig) => Effect.Effect<A, E, R>) => Effect.Effect<A, unknown, R>
): Effect.Effect<number, unknown> => {
  const command = COMMANDS.find((c) => c.words.every((w, i) => argv[i] === w))
  if (command === undefined) {
    const group = COMMANDS.filter((c) => c.words[0] === argv[0])
    return Effect.as(Console.error(`unknown command: ${argv.slice(0, 2).join(" ")}\n\ncommands:\n${group.map((c) => `  ${[...c.words, c.args].join(" ")}`).join("\n")}`), 2)
  }
  const parsed = Effect.try({
    try: () => parseArgs({ args: argv.slice(command.words.length), options: command.options, allowPositionals: true, strict: true }),
    catch: (e) => new UsageError(e instanceof Error ? e.message : String(e))
  })
  const program = Effect.gen(function*() {
    const { values, positionals } = yield* parsed
    const [min, max] = command.positionals
    if (positionals.length < min || positionals.length > max) {
      return yield* Effect.fail(new UsageError(`expected ${command.args === "" ? "no arguments" : command.args}`))
    }
    return yield* command.run(values as Values, positionals)
  }) as Effect.Effect<ReadonlyArray<string>, unknown, never>
  const run: Effect.Effect<ReadonlyArray<string>, unknown> = command.database
    ? withConfig((config) =>
      quietLogs(
        Effect.scoped(Effect.flatMap(Layer.build(adminLayers(config)), (context) =>
          program.pipe(Effect.tap(() => Commands.warnUndelivered), Effect.provide(context)))) as Effect.Effect<ReadonlyArray<string>, unknown>,
        config.logLevel
      ))
    : quietLogs(program, LogLevel.Warning)
  return run.pipe(
    Effect.flatMap((lines) => Effect.as(Effect.forEach(lines, (l) => Console.log(l)), 0)),
    Effect.catchIf((e): e is UsageError => e instanceof UsageError, (e) =>
      Effect.as(Console.error(`${e.message}\n\nusage: ${[...command.words, command.args].join(" ")}`), 2)),
    Effect.catchIf((e): e is Commands.CommandFailed => e instanceof Commands.CommandFailed, (e) => Effect.as(Console.error(e.message), e.exitCode))
  )
}
