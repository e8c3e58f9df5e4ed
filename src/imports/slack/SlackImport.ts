import { Clock, Effect, Schema } from "effect"
import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as path from "node:path"
import { Db } from "../../../layers/Db.ts"
import { rows } from "../../../layers/Rows.ts"
import { teamNameProblem } from "../../teams/TeamValidation.ts"
import { importFile, type ImportOptions, type ImportResult } from "../Importer.ts"
import { SourceError } from "../Source.ts"
import { convert, type Report } from "./Convert.ts"
import { openExport } from "./ExportZip.ts"
import type { ServerPeople } from "./People.ts"

/**
 * `--import-slack FILE.zip --team NAME`: the export converted to the bulk format in a temporary folder (removed at
 * the end), then imported by the bulk importer into team NAME (created when missing): validated whole first, nothing
 * written on a problem or a dry run, and a second run creates nothing.
 */
const Found = rows("slack import people", Schema.Struct({ username: Schema.String, is_bot: Schema.Boolean }))

const serverPeople = Effect.map(Db, (db): ServerPeople => ({
  byEmail: (email) =>
    Effect.map(db.read(db.sql`SELECT username, is_bot FROM users WHERE lower(email) = lower(${email}) LIMIT 1`.pipe(Found)), ([r]) =>
      r === undefined ? undefined : { username: r.username, isBot: r.is_bot }),
  byName: (username) =>
    Effect.map(db.read(db.sql`SELECT username, is_bot FROM users WHERE lower(username) = lower(${username}) LIMIT 1`.pipe(Found)), ([r]) =>
      r === undefined ? undefined : { isBot: r.is_bot })
}))

export interface SlackResult {
  readonly conversion: Report
  readonly result: ImportResult
}

export const importSlack = (
  file: string,
  team: string,
  options: ImportOptions & { readonly note: (text: string, done: number, total: number) => Effect.Effect<void, unknown> }
) =>
  Effect.scoped(Effect.gen(function*() {
    const problem = teamNameProblem(team)
    if (problem !== undefined) return yield* Effect.fail(new SourceError({ message: `--team ${team}: ${problem}` }))
    const dir = yield* Effect.acquireRelease(
      Effect.promise(() => fs.mkdtemp(path.join(os.tmpdir(), "slack-import-"))),
      (d) => Effect.promise(() => fs.rm(d, { recursive: true, force: true }))
    )
    const zip = yield* openExport(file)
    const converted = yield* convert(zip, file, dir, { team, now: yield* Clock.currentTimeMillis, server: yield* serverPeople, progress: options.note })
    const result = yield* importFile(converted.file, { ...options, files: { kind: "zip", has: (name) => Effect.succeed(zip.has(name)), open: zip.open } })
    return { conversion: converted.report, result } satisfies SlackResult
  }))

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`

/** The end-of-run summary: what came from Slack, what was written, and what was left out and why. */
export const slackReport = (file: string, dryRun: boolean, { conversion: c, result }: SlackResult): ReadonlyArray<string> => {
  const lines = [
    `${file}: ${plural(c.people, "person")} (${c.matched} matched to an account by email), ${plural(c.bots, "bot")}, ${plural(c.channels, "channel")}, ` +
    `${plural(c.direct, "direct or group conversation")}, ${plural(c.messages, "message")}, ${plural(c.files, "file")}`
  ]
  if (c.linkedTotal > 0) {
    lines.push(`files only linked (the export has no bytes for them; fetch them from Slack): ${c.linkedTotal}`)
    for (const f of c.linked) lines.push(`  linked: ${f.conversation} ${f.ts} ${f.name} ${f.url}`)
    if (c.linkedTotal > c.linked.length) lines.push(`  ... and ${c.linkedTotal - c.linked.length} more`)
  }
  for (const [reason, n] of Object.entries(c.skipped).sort(([a], [b]) => a.localeCompare(b))) lines.push(`skipped: ${n} ${reason}`)
  const problems = result.validation.problems
  for (const p of problems.slice(0, 50)) lines.push(`converted line ${p.line}: ${p.message}`)
  const counts = (o: Record<string, number>) => Object.entries(o).sort(([a], [b]) => a.localeCompare(b)).map(([k, n]) => `${k} ${n}`).join(", ") || "nothing"
  if (problems.length > 0) lines.push(`${plural(problems.length, "problem")} in the converted export: nothing was imported`)
  else if (dryRun) lines.push("valid: nothing was imported (dry run)")
  else {
    lines.push(`created: ${counts(result.created)}`)
    lines.push(`already there: ${counts(result.existing)}`)
  }
  return lines
}
