import type { SqlClient } from "@effect/sql"
import { Context, Effect, Layer, Schema } from "effect"
import { newId } from "../../layers/Crypto.ts"
import { Db, type DbError } from "../../layers/Db.ts"
import { Int8Text, JsonObject, rows, StringList } from "../../layers/Rows.ts"

/**
 * Earlier versions of edited posts (migration 0102), and what a permalink needs to know about a post. Bigints stay
 * the driver's text: PostHistoryRoutes converts them for the wire.
 */
export const EditVersion = Schema.Struct({
  id: Schema.String,
  original_id: Schema.String,
  create_at: Int8Text,
  edit_at: Int8Text,
  replaced_at: Int8Text,
  user_id: Schema.String,
  channel_id: Schema.String,
  root_id: Schema.String,
  message: Schema.String,
  type: Schema.String,
  props: JsonObject,
  hashtags: Schema.String,
  file_ids: StringList
})
export type EditVersion = typeof EditVersion.Type
const Versions = rows("PostHistoryRepo versions", EditVersion)

/** The team columns are null for a direct or group message (no team row joined). */
export const PostPlace = Schema.Struct({
  channel_id: Schema.String,
  channel_type: Schema.String,
  channel_display_name: Schema.String,
  channel_delete_at: Int8Text,
  team_id: Schema.String,
  team_type: Schema.NullOr(Schema.String),
  team_display_name: Schema.NullOr(Schema.String),
  team_allow_open_invite: Schema.NullOr(Schema.Boolean),
  has_joined_channel: Schema.Boolean,
  has_joined_team: Schema.Boolean
})
export type PostPlace = typeof PostPlace.Type
const Places = rows("PostHistoryRepo place", PostPlace)

export interface PostHistoryRepoService {
  /**
   * Keeps the current version of a post before its message changes to `message` (nothing when it does not change).
   * Runs inside the caller's transaction, with the statement that applies the edit.
   */
  readonly keepPrevious: (sql: SqlClient.SqlClient, postId: string, message: string, now: number) => Effect.Effect<void, unknown>
  /** Earlier versions, newest first. */
  readonly versions: (postId: string) => Effect.Effect<ReadonlyArray<EditVersion>, DbError>
  readonly place: (postId: string, userId: string) => Effect.Effect<ReadonlyArray<PostPlace>, DbError>
}

export class PostHistoryRepo extends Context.Tag("service/PostHistoryRepo")<PostHistoryRepo, PostHistoryRepoService>() {}

export const make = Effect.gen(function*() {
  const db = yield* Db
  const sql = db.sql
  const service: PostHistoryRepoService = {
    keepPrevious: (tx, postId, message, now) =>
      Effect.asVoid(tx`
        INSERT INTO post_edit_history (id, original_id, create_at, edit_at, replaced_at, user_id, channel_id, root_id,
                                       message, type, props, hashtags, file_ids)
        SELECT ${newId()}, id, create_at, edit_at, ${now}, user_id, channel_id, root_id, message, type, props, hashtags, file_ids
        FROM posts WHERE id = ${postId} AND delete_at = 0 AND message <> ${message}`),
    versions: (postId) =>
      db.read(sql`
        SELECT * FROM post_edit_history WHERE original_id = ${postId} ORDER BY replaced_at DESC, id DESC LIMIT 1000`).pipe(Versions),
    place: (postId, userId) =>
      db.read(sql`
        SELECT c.id AS channel_id, c.type AS channel_type, c.display_name AS channel_display_name, c.delete_at AS channel_delete_at,
               c.team_id, t.type AS team_type, t.display_name AS team_display_name, t.allow_open_invite AS team_allow_open_invite,
               EXISTS (SELECT 1 FROM channel_members cm WHERE cm.channel_id = c.id AND cm.user_id = ${userId}) AS has_joined_channel,
               EXISTS (SELECT 1 FROM team_members tm WHERE tm.team_id = c.team_id AND tm.user_id = ${userId} AND tm.delete_at = 0) AS has_joined_team
        FROM posts p JOIN channels c ON c.id = p.channel_id LEFT JOIN teams t ON t.id = c.team_id AND t.delete_at = 0
        WHERE p.id = ${postId} AND p.delete_at = 0`).pipe(Places)
  }
  return service
})

export const layer = Layer.effect(PostHistoryRepo, make)
