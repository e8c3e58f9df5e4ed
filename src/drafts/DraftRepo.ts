import { Context, Effect, Layer, Option, Schema } from "effect"
import { Db, type DbError } from "../../layers/Db.ts"
import { rows } from "../../layers/Rows.ts"
import type { DraftJson } from "../../schemas/Drafts.ts"
import type { PriorityJson } from "../../schemas/PostPriority.ts"
import { UnsentMessageRow, unsentToJson } from "./UnsentMessageRow.ts"

/** Synced drafts (migration 0103). */
const DraftRow = Schema.Struct({
  ...UnsentMessageRow.fields,
  /** Whether the upsert inserted the row (xmax = 0), to tell draft_created from draft_updated. */
  inserted: Schema.optional(Schema.Boolean)
})
type DraftRow = typeof DraftRow.Type
const Drafts = rows("DraftRepo drafts", DraftRow)

const toJson = (r: DraftRow): DraftJson => ({ ...unsentToJson(r), delete_at: 0 })

export interface DraftInput {
  readonly userId: string
  readonly channelId: string
  readonly rootId: string
  readonly message: string
  readonly props: Record<string, unknown>
  readonly fileIds: ReadonlyArray<string>
  readonly priority: PriorityJson | null
  readonly now: number
}

export interface DraftRepoService {
  readonly upsert: (d: DraftInput) => Effect.Effect<{ readonly draft: DraftJson; readonly created: boolean }, DbError>
  /** The user's drafts in the team's channels and in their direct and group messages, newest first. */
  readonly forTeam: (userId: string, teamId: string) => Effect.Effect<ReadonlyArray<DraftJson>, DbError>
  readonly remove: (userId: string, channelId: string, rootId: string) => Effect.Effect<Option.Option<DraftJson>, DbError>
}

export class DraftRepo extends Context.Tag("service/DraftRepo")<DraftRepo, DraftRepoService>() {}

export const make = Effect.gen(function*() {
  const db = yield* Db
  const sql = db.sql
  const service: DraftRepoService = {
    upsert: (d) =>
      Effect.map(
        db.execute(sql`
          INSERT INTO drafts (user_id, channel_id, root_id, create_at, update_at, message, props, file_ids, priority)
          VALUES (${d.userId}, ${d.channelId}, ${d.rootId}, ${d.now}, ${d.now}, ${d.message}, ${JSON.stringify(d.props)}::jsonb,
                  ${JSON.stringify(d.fileIds)}::jsonb, ${d.priority === null ? null : JSON.stringify(d.priority)}::jsonb)
          ON CONFLICT (user_id, channel_id, root_id) DO UPDATE SET
            update_at = EXCLUDED.update_at, message = EXCLUDED.message, props = EXCLUDED.props, file_ids = EXCLUDED.file_ids,
            priority = EXCLUDED.priority
          RETURNING *, (xmax = 0) AS inserted`.pipe(Drafts)),
        (rows) => ({ draft: toJson(rows[0]), created: rows[0].inserted === true })
      ),
    forTeam: (userId, teamId) =>
      Effect.map(
        db.read(sql`
          SELECT d.* FROM drafts d JOIN channels c ON c.id = d.channel_id
          WHERE d.user_id = ${userId} AND c.delete_at = 0 AND (c.team_id = ${teamId} OR c.team_id = '')
            AND EXISTS (SELECT 1 FROM channel_members cm WHERE cm.channel_id = c.id AND cm.user_id = ${userId})
          ORDER BY d.update_at DESC LIMIT 1000`.pipe(Drafts)),
        (rows) => rows.map(toJson)
      ),
    remove: (userId, channelId, rootId) =>
      Effect.map(
        db.execute(sql`
          DELETE FROM drafts WHERE user_id = ${userId} AND channel_id = ${channelId} AND root_id = ${rootId} RETURNING *`.pipe(Drafts)),
        (rows) => Option.map(Option.fromNullable(rows[0]), toJson)
      )
  }
  return service
})

export const layer = Layer.effect(DraftRepo, make)
