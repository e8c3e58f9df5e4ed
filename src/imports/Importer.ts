import { Chunk, Clock, Effect, Either, Stream } from "effect"
import { Db } from "../../layers/Db.ts"
import { PubSub } from "../../layers/PubSub.ts"
import { PAGE_CACHE_CLEAR_TOPIC } from "../posts/PageCache.ts"
import { analyzeImported } from "./ImportRepo.ts"
import * as Source from "./Source.ts"
import { decodeLine, type Existing, validate, type Validation } from "./Validate.ts"
import { makeWriter } from "./Writer.ts"

/**
 * Imports a Mattermost bulk export: first the whole file is validated (Validate.ts) and nothing is written when any
 * line has a problem (or on a dry run); then the lines are read again, one at a time, and written in batches, one
 * transaction per batch. Lines are applied in file order, as Mattermost does (version, teams, channels, users, bots,
 * posts, direct channels, direct posts, emoji), so a reference always names something an earlier line or the server holds.
 * At the end the channels' counters and the members' read state are derived from the imported posts, so unread
 * counts, threads and search (posts.search_vector is a generated column) work on the imported history at once.
 * No events are published: clients that are connected during an import see its result when they next load.
 */

export interface Progress {
  readonly phase: "validating" | "importing" | "finishing"
  readonly linesDone: number
  readonly linesTotal: number
}

export interface ImportOptions {
  readonly dryRun: boolean
  readonly batchSize?: number
  readonly onProgress?: (progress: Progress) => Effect.Effect<void, unknown>
  /** Where attachments are read from, when not beside the file (a Slack export's shared files stay in its zip). */
  readonly files?: Pick<Source.Source, "kind" | "has" | "open">
}

export interface ImportResult {
  readonly validation: Validation
  /** Things created and things found already there, by kind (team, channel, user, post, reply, reaction, ...). */
  readonly created: Record<string, number>
  readonly existing: Record<string, number>
}

const DEFAULT_BATCH = 100
/**
 * Lines written before the first ANALYZE of the imported tables; then again each time the lines written double, and
 * once before the finishing statements: a few ANALYZEs per import, each of bounded cost, keep the plans right as the
 * tables grow from empty (analyzeImported says why that matters).
 */
const FIRST_ANALYZE_LINES = 1000


/** What the server already holds, for the validation of references. */
export const existingOnServer = Effect.map(Db, (db): Existing => ({
  team: (name) => Effect.map(db.read(db.sql`SELECT 1 FROM teams WHERE name = ${name}`), (r) => r.length > 0),
  channel: (team, name) =>
    Effect.map(db.read(db.sql`
      SELECT 1 FROM channels c JOIN teams t ON t.id = c.team_id WHERE t.name = ${team} AND c.name = ${name}`), (r) => r.length > 0),
  user: (username) => Effect.map(db.read(db.sql`SELECT 1 FROM users WHERE lower(username) = lower(${username})`), (r) => r.length > 0)
}))

/** Validates, then (unless a dry run or a problem) imports the file. */
export const importFile = (file: string, options: ImportOptions) =>
  Effect.scoped(Effect.gen(function*() {
    const progress = options.onProgress ?? (() => Effect.void)
    const opened = yield* Source.open(file)
    const source: Source.Source = options.files === undefined ? opened : { ...opened, ...options.files }
    const validation = yield* validate(source, yield* existingOnServer, (linesDone) => progress({ phase: "validating", linesDone, linesTotal: 0 }))
    if (options.dryRun || validation.problems.length > 0) return { validation, created: {}, existing: {} } satisfies ImportResult
    const db = yield* Db
    const pubsub = yield* PubSub
    const writer = yield* makeWriter(source)
    yield* progress({ phase: "importing", linesDone: 0, linesTotal: validation.lines })
    let written = 0
    let analyzeAt = FIRST_ANALYZE_LINES
    yield* source.lines.pipe(
      Stream.grouped(options.batchSize ?? DEFAULT_BATCH),
      Stream.runForEach((chunk) =>
        Effect.gen(function*() {
          const now = yield* Clock.currentTimeMillis
          yield* db.transaction(Effect.gen(function*() {
            for (const input of chunk) {
              if (input.text.trim() === "") continue
              const decoded = decodeLine(input.text)
              // Validated a moment ago; a file changed since is refused rather than half-read.
              if (Either.isLeft(decoded)) return yield* Effect.fail(new Source.SourceError({ message: `line ${input.line} changed since validation: ${decoded.left}` }))
              yield* writer.line(decoded.right, now).pipe(
                Effect.mapError((e) => new Source.SourceError({ message: `line ${input.line}: ${describeError(e)}` }))
              )
            }
            yield* writer.endBatch(now)
          }))
          // Imported posts are announced by no channel event: cached channel pages of every node are dropped.
          yield* Effect.ignore(pubsub.publish(PAGE_CACHE_CLEAR_TOPIC, "import"))
          written += chunk.length
          if (written >= analyzeAt) {
            yield* db.transaction(analyzeImported(db.sql))
            analyzeAt = written * 2
          }
          yield* progress({ phase: "importing", linesDone: Chunk.unsafeLast(chunk).line, linesTotal: validation.lines })
        })
      )
    )
    yield* db.transaction(analyzeImported(db.sql))
    yield* progress({ phase: "finishing", linesDone: validation.lines, linesTotal: validation.lines })
    yield* writer.finish
    return { validation, created: writer.created, existing: writer.existing } satisfies ImportResult
  }))

const describeError = (e: unknown): string =>
  e instanceof Error ? e.message : typeof e === "object" && e !== null && "message" in e ? String((e as { message: unknown }).message) : String(e)
