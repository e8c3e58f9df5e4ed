import { Schema } from "effect"
import { Int8Text, JsonObject, JsonObjectOf, StringList } from "../../layers/Rows.ts"
import type { UnsentMessageJson } from "../../schemas/Drafts.ts"
import type { PriorityJson } from "../../schemas/PostPriority.ts"

/** The columns drafts and scheduled_posts share, as PostgreSQL returns them (bigints as strings). */
export const UnsentMessageRow = Schema.Struct({
  user_id: Schema.String,
  channel_id: Schema.String,
  root_id: Schema.String,
  create_at: Int8Text,
  update_at: Int8Text,
  message: Schema.String,
  props: JsonObject,
  file_ids: StringList,
  /** Migration 0132: null when the message has no priority. */
  priority: Schema.NullOr(JsonObjectOf<PriorityJson>())
})
export type UnsentMessageRow = typeof UnsentMessageRow.Type

export const unsentToJson = (r: UnsentMessageRow): UnsentMessageJson => ({
  create_at: Number(r.create_at),
  update_at: Number(r.update_at),
  user_id: r.user_id,
  channel_id: r.channel_id,
  root_id: r.root_id,
  message: r.message,
  props: r.props ?? {},
  file_ids: r.file_ids ?? [],
  metadata: {},
  ...(r.priority === null || r.priority === undefined ? {} : { priority: r.priority })
})
