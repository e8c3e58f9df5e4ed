import { Cause, Clock, Effect, Schema } from "effect"
import * as fs from "node:fs/promises"
import { newId } from "../../layers/Crypto.ts"
import { Db } from "../../layers/Db.ts"
import { Int8Text, JsonArrayOf, JsonObjectOf, rows } from "../../layers/Rows.ts"
import type { ImportJob, SlackImportReport } from "../../schemas/BulkImport.ts"
import { importFile, type ImportResult } from "./Importer.ts"
import type { Report } from "./slack/Convert.ts"
import { importSlack } from "./slack/SlackImport.ts"

/**
 * Import jobs of the admin API: a row per job (migration 0135), written as the job moves (validating, importing with
 * the lines done, then succeeded with the counts or the problems, or failed with the reason). The import itself runs
 * in a daemon fiber of the node that took the request, so the request returns at once with the job's id.
 */
/** The row: the job's wire type, with bigint columns as PostgreSQL returns them. */
const JobRow = Schema.Struct({
  id: Schema.String,
  status: Schema.Literal("pending", "converting", "validating", "importing", "succeeded", "failed"),
  format: Schema.Literal("mattermost", "slack"),
  team: Schema.String,
  report: Schema.NullOr(JsonObjectOf<SlackImportReport>()),
  dry_run: Schema.Boolean,
  create_at: Int8Text,
  update_at: Int8Text,
  lines_total: Int8Text,
  lines_done: Int8Text,
  created: JsonObjectOf<ImportJob["created"]>(),
  existing: JsonObjectOf<ImportJob["existing"]>(),
  problems: JsonArrayOf<ImportJob["problems"]>(),
  error: Schema.String
})
type JobRow = typeof JobRow.Type
const Jobs = rows("ImportJobs job", JobRow)

/** At most this many problems are kept on the job; the dry run on the command line lists them all. */
const MAX_PROBLEMS = 1000

const toJob = (r: JobRow): ImportJob => ({
  id: r.id,
  status: r.status,
  format: r.format,
  team: r.team,
  report: r.report,
  dry_run: r.dry_run,
  create_at: Number(r.create_at),
  update_at: Number(r.update_at),
  lines_total: Number(r.lines_total),
  lines_done: Number(r.lines_done),
  created: r.created,
  existing: r.existing,
  problems: r.problems,
  error: r.error
})

export const find = (id: string) =>
  Effect.flatMap(Db, (db) =>
    Effect.map(db.read(db.sql`SELECT * FROM import_jobs WHERE id = ${id}`.pipe(Jobs)), (rows) => (rows[0] === undefined ? undefined : toJob(rows[0]))))

/** The jobs newest first, a page at a time (the System Console's Data page). */
export const list = (offset: number, limit: number) =>
  Effect.flatMap(Db, (db) =>
    Effect.map(
      db.read(db.sql`SELECT * FROM import_jobs ORDER BY create_at DESC, id LIMIT ${limit} OFFSET ${offset}`.pipe(Jobs)),
      (rows) => rows.map(toJob)
    ))

const update = (id: string, fields: Record<string, unknown>) =>
  Effect.gen(function*() {
    const db = yield* Db
    const now = yield* Clock.currentTimeMillis
    yield* db.execute(db.sql`UPDATE import_jobs SET ${db.sql.update({ ...fields, update_at: now })} WHERE id = ${id}`)
  })

/** Records the job and starts it; returns the job as it is at the start. */
const slackReport = (r: Report): SlackImportReport => ({
  people: r.people,
  matched: r.matched,
  bots: r.bots,
  channels: r.channels,
  direct: r.direct,
  messages: r.messages,
  files: r.files,
  linked_total: r.linkedTotal,
  linked: r.linked,
  skipped: r.skipped
})

export interface StartInput {
  readonly creatorId: string
  readonly path: string
  readonly uploaded: boolean
  readonly dryRun: boolean
  readonly id?: string
  /** A Slack workspace export into `team`, or (by default) Mattermost's bulk format. */
  readonly slackTeam?: string
}

export const start = (input: StartInput) =>
  Effect.gen(function*() {
    const db = yield* Db
    const now = yield* Clock.currentTimeMillis
    const id = input.id ?? newId()
    yield* db.execute(db.sql`
      INSERT INTO import_jobs (id, creator_id, path, uploaded, dry_run, status, create_at, update_at, format, team)
      VALUES (${id}, ${input.creatorId}, ${input.path}, ${input.uploaded}, ${input.dryRun}, 'pending', ${now}, ${now},
              ${input.slackTeam === undefined ? "mattermost" : "slack"}, ${input.slackTeam ?? ""})`)
    // The upload is removed before the job's end is recorded: a job seen as ended has left nothing behind.
    const removeUpload = input.uploaded ? Effect.promise(() => fs.rm(input.path, { force: true })) : Effect.void
    const onProgress = (p: { readonly phase: string; readonly linesDone: number; readonly linesTotal: number }) =>
      Effect.provideService(update(id, {
        status: p.phase === "validating" ? "validating" : "importing",
        lines_done: p.linesDone,
        lines_total: p.linesTotal
      }), Db, db)
    const imported = input.slackTeam === undefined
      ? Effect.map(importFile(input.path, { dryRun: input.dryRun, onProgress }), (result): { result: ImportResult; report: SlackImportReport | null } => ({ result, report: null }))
      : Effect.map(
        importSlack(input.path, input.slackTeam, {
          dryRun: input.dryRun,
          onProgress,
          // The conversion's progress: conversations read of all (a line per conversation would be too many writes
          // for an export of thousands of DMs, so at most one per second).
          note: throttled((_text, done, total) => Effect.provideService(update(id, { status: "converting", lines_done: done, lines_total: total }), Db, db))
        }),
        (r) => ({ result: r.result, report: slackReport(r.conversion) })
      )
    const run = imported.pipe(
      Effect.ensuring(removeUpload),
      Effect.flatMap(({ result, report }) =>
        update(id, {
          report: report === null ? null : JSON.stringify(report),
          status: result.validation.problems.length > 0 ? "failed" : "succeeded",
          lines_total: result.validation.lines,
          lines_done: result.validation.problems.length > 0 || input.dryRun ? 0 : result.validation.lines,
          created: JSON.stringify(result.created),
          existing: JSON.stringify(result.existing),
          problems: JSON.stringify(result.validation.problems.slice(0, MAX_PROBLEMS)),
          error: result.validation.problems.length > 0 ? `${result.validation.problems.length} problems: nothing was imported` : ""
        })),
      Effect.catchAllCause((cause) =>
        Effect.flatMap(Effect.logWarning("import job failed", cause), () =>
          update(id, { status: "failed", error: describe(cause) }))),
      Effect.catchAllCause((cause) => Effect.logError("import job could not record its end", cause))
    )
    yield* Effect.forkDaemon(Effect.provideService(run, Db, db))
    return (yield* find(id))!
  })

/** Runs `f` at most once a second (the calls in between are dropped). */
const throttled = <Args extends ReadonlyArray<unknown>>(f: (...args: Args) => Effect.Effect<void, unknown>) => {
  let last = 0
  return (...args: Args) =>
    Effect.flatMap(Clock.currentTimeMillis, (now) => {
      if (now - last < 1000) return Effect.void
      last = now
      return f(...args)
    })
}

const describe = (cause: Cause.Cause<unknown>) => {
  const error = Cause.squash(cause)
  const message = typeof error === "object" && error !== null && "message" in error ? String(error.message) : String(error)
  return message.slice(0, 1000)
}
