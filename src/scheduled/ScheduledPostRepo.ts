import { Context, Effect, Layer, Option, Schema } from "effect"
import { Db, type DbError } from "../../layers/Db.ts"
import { Int8Text, rows } from "../../layers/Rows.ts"
import type { PriorityJson } from "../../schemas/PostPriority.ts"
import type { ScheduledPostJson } from "../../schemas/ScheduledPosts.ts"
import { UnsentMessageRow, unsentToJson } from "../drafts/UnsentMessageRow.ts"

/** Scheduled posts (migration 0104). */
const Row = Schema.Struct({
  ...UnsentMessageRow.fields,
  id: Schema.String,
  scheduled_at: Int8Text,
  processed_at: Int8Text,
  error_code: Schema.String,
  team_id: Schema.optional(Schema.String)
})
type Row = typeof Row.Type
const ScheduledRows = rows("ScheduledPostRepo scheduled posts", Row)

const toJson = (r: Row): ScheduledPostJson => ({
  ...unsentToJson(r),
  id: r.id,
  scheduled_at: Number(r.scheduled_at),
  processed_at: Number(r.processed_at),
  error_code: r.error_code
})

const jsonOrNull = (value: unknown) => value === null ? null : JSON.stringify(value)

export interface ScheduledFields {
  readonly channelId: string
  readonly rootId: string
  readonly message: string
  readonly props: Record<string, unknown>
  readonly fileIds: ReadonlyArray<string>
  readonly scheduledAt: number
  readonly priority: PriorityJson | null
}

export interface ScheduledPostRepoService {
  readonly insert: (id: string, userId: string, f: ScheduledFields, now: number) => Effect.Effect<ScheduledPostJson, DbError>
  /** Rewrites a scheduled post of the user; a post already claimed by the job cannot change. */
  readonly update: (id: string, userId: string, f: ScheduledFields, now: number) => Effect.Effect<Option.Option<ScheduledPostJson>, DbError>
  readonly remove: (id: string, userId: string) => Effect.Effect<Option.Option<ScheduledPostJson>, DbError>
  readonly get: (id: string) => Effect.Effect<Option.Option<ScheduledPostJson>, DbError>
  /** The user's scheduled posts in the team's channels, and (separately) in direct and group messages. */
  readonly forTeam: (userId: string, teamId: string) => Effect.Effect<{ readonly team: ReadonlyArray<ScheduledPostJson>; readonly direct: ReadonlyArray<ScheduledPostJson> }, DbError>
  /** Claims up to `limit` due posts for this node: each row is claimed by exactly one caller, across nodes. */
  readonly claimDue: (now: number, limit: number) => Effect.Effect<ReadonlyArray<ScheduledPostJson>, DbError>
  readonly done: (id: string) => Effect.Effect<void, DbError>
  readonly failed: (id: string, errorCode: string, now: number) => Effect.Effect<void, DbError>
}

export class ScheduledPostRepo extends Context.Tag("service/ScheduledPostRepo")<ScheduledPostRepo, ScheduledPostRepoService>() {}

export const make = Effect.gen(function*() {
  const db = yield* Db
  const sql = db.sql
  const one = (rows: ReadonlyArray<Row>) => Option.map(Option.fromNullable(rows[0]), toJson)
  const service: ScheduledPostRepoService = {
    insert: (id, userId, f, now) =>
      Effect.map(
        db.execute(sql`
          INSERT INTO scheduled_posts (id, user_id, channel_id, root_id, create_at, update_at, scheduled_at, message, props, file_ids,
                                       priority)
          VALUES (${id}, ${userId}, ${f.channelId}, ${f.rootId}, ${now}, ${now}, ${f.scheduledAt}, ${f.message},
                  ${JSON.stringify(f.props)}::jsonb, ${JSON.stringify(f.fileIds)}::jsonb, ${jsonOrNull(f.priority)}::jsonb)
          RETURNING *`.pipe(ScheduledRows)),
        (rows) => toJson(rows[0])
      ),
    update: (id, userId, f, now) =>
      Effect.map(
        db.execute(sql`
          UPDATE scheduled_posts SET channel_id = ${f.channelId}, root_id = ${f.rootId}, message = ${f.message},
            props = ${JSON.stringify(f.props)}::jsonb, file_ids = ${JSON.stringify(f.fileIds)}::jsonb,
            priority = ${jsonOrNull(f.priority)}::jsonb,
            scheduled_at = ${f.scheduledAt}, update_at = ${now}, error_code = '', processed_at = 0
          WHERE id = ${id} AND user_id = ${userId} AND (processed_at = 0 OR error_code <> '')
          RETURNING *`.pipe(ScheduledRows)),
        one
      ),
    remove: (id, userId) =>
      Effect.map(db.execute(sql`DELETE FROM scheduled_posts WHERE id = ${id} AND user_id = ${userId} RETURNING *`.pipe(ScheduledRows)), one),
    get: (id) => Effect.map(db.read(sql`SELECT * FROM scheduled_posts WHERE id = ${id}`.pipe(ScheduledRows)), one),
    forTeam: (userId, teamId) =>
      Effect.map(
        db.read(sql`
          SELECT s.*, c.team_id FROM scheduled_posts s JOIN channels c ON c.id = s.channel_id
          WHERE s.user_id = ${userId} AND (c.team_id = ${teamId} OR c.team_id = '')
          ORDER BY s.scheduled_at, s.id LIMIT 1000`.pipe(ScheduledRows)),
        (rows) => ({ team: rows.filter((r) => r.team_id !== "").map(toJson), direct: rows.filter((r) => r.team_id === "").map(toJson) })
      ),
    claimDue: (now, limit) =>
      Effect.map(
        db.execute(sql`
          UPDATE scheduled_posts SET processed_at = ${now}
          WHERE id IN (
            SELECT id FROM scheduled_posts WHERE processed_at = 0 AND scheduled_at <= ${now}
            ORDER BY scheduled_at LIMIT ${limit} FOR UPDATE SKIP LOCKED)
          RETURNING *`.pipe(ScheduledRows)),
        (rows) => rows.map(toJson)
      ),
    done: (id) => Effect.asVoid(db.execute(sql`DELETE FROM scheduled_posts WHERE id = ${id}`)),
    failed: (id, errorCode, now) =>
      Effect.asVoid(db.execute(sql`UPDATE scheduled_posts SET error_code = ${errorCode}, update_at = ${now} WHERE id = ${id}`))
  }
  return service
})

export const layer = Layer.effect(ScheduledPostRepo, make)
