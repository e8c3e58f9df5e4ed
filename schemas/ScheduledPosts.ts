import { Schema } from "effect"
import type { UnsentMessageJson } from "./Drafts.ts"
import { Id } from "./Params.ts"
import { PriorityInput } from "./PostPriority.ts"


/** POST /posts/schedule and PUT /posts/schedule/{id}: Mattermost's ScheduledPost (the fields a client sets). */
export const ScheduledPostBody = Schema.Struct({
  id: Schema.optional(Schema.String),
  channel_id: Id,
  root_id: Schema.optionalWith(Schema.Union(Id, Schema.Literal("")), { default: () => "" }),
  message: Schema.optionalWith(Schema.String.pipe(Schema.maxLength(70_000)), { default: () => "" }),
  props: Schema.optionalWith(Schema.Record({ key: Schema.String, value: Schema.Unknown }), { default: () => ({}) }),
  file_ids: Schema.optionalWith(Schema.Array(Id).pipe(Schema.maxItems(10)), { default: () => [] }),
  scheduled_at: Schema.Number.pipe(Schema.int(), Schema.between(0, 8_640_000_000_000_000)),
  priority: Schema.optional(Schema.NullOr(PriorityInput))
})
export type ScheduledPostBody = typeof ScheduledPostBody.Type

export const ScheduledListQuery = Schema.Struct({
  includeDirectChannels: Schema.optionalWith(Schema.Literal("true", "false"), { default: () => "false" })
})

export interface ScheduledPostJson extends UnsentMessageJson {
  readonly id: string
  readonly scheduled_at: number
  readonly processed_at: number
  readonly error_code: string
}
