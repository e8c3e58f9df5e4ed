import { Clock, Console, Effect, Layer, Logger, LogLevel } from "effect"
import { parseArgs } from "node:util"
import * as Migrations from "../../layers/Migrations.ts"
import type { ResolvedConfig } from "../Config.ts"
import { exportTo } from "../imports/Exporter.ts"
import { importFile, type ImportResult, type Progress } from "../imports/Importer.ts"
import { importSlack, slackReport } from "../imports/slack/SlackImport.ts"
import { capabilities } from "../Composition.ts"

/**
 * `--import FILE [--dry-run]` and `--export FILE`: Mattermost bulk import and export over the database and file store
 * of the same SERVICE_* configuration (pending migrations applied first). Progress goes to stderr, the summary and
 * every validation problem (with its line number) to stdout. Exit codes: 0 done, 1 problems found or failed, 2 usage.
 */
const layers = (config: ResolvedConfig) =>
  Layer.provideMerge(Layer.effectDiscard(Migrations.run), capabilities({ ...config, dbPoolMin: 0, dbPoolMax: 2 }))

const describeCounts = (counts: Record<string, number>) =>
  Object.entries(counts).sort(([a], [b]) => a.localeCompare(b)).map(([k, n]) => `${k} ${n}`).join(", ") || "nothing"

/** Seconds since `started`, as a progress line's prefix: "[12.3 s]". */
const elapsed = (started: number) => `[${((performance.now() - started) / 1000).toFixed(1)} s]`

/** One progress line per phase change and every few seconds, so that a large file shows it is moving. */
const progressPrinter = (started = performance.now()) => {
  let lastPrint = 0
  let lastPhase = ""
  return (p: Progress) =>
    Effect.flatMap(Clock.currentTimeMillis, (now) => {
      if (p.phase === lastPhase && now - lastPrint < 2000) return Effect.void
      lastPrint = now
      lastPhase = p.phase
      const share = p.linesTotal > 0 ? ` (${Math.floor((p.linesDone / p.linesTotal) * 100)}%)` : ""
      return Console.error(`${elapsed(started)} ${p.phase}: ${p.linesDone}${p.linesTotal > 0 ? `/${p.linesTotal}` : ""} lines${share}`)
    })
}

export const report = (file: string, dryRun: boolean, result: ImportResult): ReadonlyArray<string> => {
  const { validation } = result
  const lines = [`${file}: ${validation.lines} lines (${describeCounts(validation.counts)})`]
  for (const p of validation.problems) lines.push(`line ${p.line}: ${p.message}`)
  if (validation.problems.length > 0) {
    lines.push(`${validation.problems.length} problem${validation.problems.length === 1 ? "" : "s"}: nothing was imported`)
  } else if (dryRun) {
    lines.push("valid: nothing was imported (dry run)")
  } else {
    lines.push(`created: ${describeCounts(result.created)}`)
    lines.push(`already there: ${describeCounts(result.existing)}`)
  }
  return lines
}

const usage = (message: string) =>
  Effect.as(Console.error(`${message}\n\nusage: --import FILE [--dry-run] | --import-slack FILE.zip --team NAME [--dry-run] | --export FILE(.zip|.jsonl) [--include-password-hashes]`), 2)

const OPTIONS = {
  import: { type: "string" },
  "import-slack": { type: "string" },
  team: { type: "string" },
  export: { type: "string" },
  "dry-run": { type: "boolean" },
  "include-password-hashes": { type: "boolean" }
} as const

export const runTransfer = (
  argv: ReadonlyArray<string>,
  withConfig: <A, E, R>(program: (config: ResolvedConfig) => Effect.Effect<A, E, R>) => Effect.Effect<A, unknown, R>
): Effect.Effect<number, unknown> => {
  let parsed: ReturnType<typeof parseArgs<{ options: typeof OPTIONS }>>
  try {
    parsed = parseArgs({ args: [...argv], options: OPTIONS, strict: true })
  } catch (e) {
    return usage(e instanceof Error ? e.message : String(e))
  }
  const { values } = parsed
  const modes = [values.import, values["import-slack"], values.export].filter((v) => v !== undefined).length
  if (modes !== 1) return usage("give one of --import FILE, --import-slack FILE.zip or --export FILE")
  if ((values["import-slack"] === undefined) !== (values.team === undefined)) return usage("--import-slack FILE.zip goes with --team NAME")
  const program = (config: ResolvedConfig): Effect.Effect<number, unknown> => {
    const run: Effect.Effect<number, unknown, any> = values["import-slack"] !== undefined
      ? Effect.gen(function*() {
        const dryRun = values["dry-run"] === true
        const file = values["import-slack"]!
        const started = performance.now()
        const result = yield* importSlack(file, values.team!, {
          dryRun,
          onProgress: progressPrinter(started),
          note: (text) => Console.error(`${elapsed(started)} ${text}`)
        })
        yield* Effect.forEach(slackReport(file, dryRun, result), (l) => Console.log(l), { discard: true })
        // The figures an operator sizes the next, larger import by (maxRSS is in KiB).
        const seconds = ((performance.now() - started) / 1000).toFixed(1)
        yield* Console.log(`took ${seconds} s, peak memory ${Math.round(process.resourceUsage().maxRSS / 1024)} MiB`)
        return result.result.validation.problems.length > 0 ? 1 : 0
      })
      : values.import !== undefined
      ? Effect.gen(function*() {
        const dryRun = values["dry-run"] === true
        const result = yield* importFile(values.import!, { dryRun, onProgress: progressPrinter() })
        yield* Effect.forEach(report(values.import!, dryRun, result), (l) => Console.log(l), { discard: true })
        return result.validation.problems.length > 0 ? 1 : 0
      })
      : Effect.gen(function*() {
        yield* Console.error(`exporting to ${values.export}…`)
        const result = yield* exportTo(values.export!, { passwordHashes: values["include-password-hashes"] === true })
        yield* Console.log(`${values.export}: ${result.lines} lines (${describeCounts(result.counts)}), ${result.files} files`)
        return 0
      })
    return Effect.scoped(Effect.flatMap(Layer.build(layers(config)), (context) => Effect.provide(run, context))).pipe(
      Logger.withMinimumLogLevel(LogLevel.greaterThan(config.logLevel, LogLevel.Warning) ? config.logLevel : LogLevel.Warning),
      Effect.catchIf(
        (e): e is { readonly _tag: string; readonly message: string } =>
          typeof e === "object" && e !== null && ["SourceError", "ExportError"].includes((e as { _tag?: string })._tag ?? ""),
        (e) => Effect.as(Console.error(e.message), 1)
      )
    ) as Effect.Effect<number, unknown>
  }
  return withConfig(program)
}
