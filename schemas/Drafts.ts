import { Schema } from "effect"
import { ID_PATTERN } from "./Params.ts"
import { PriorityInput, type PriorityJson } from "./PostPriority.ts"

/** POST /drafts: Mattermost's Draft. The message bound is the post bound (checked in runes by the service). */
export const DraftBody = Schema.Struct({
  user_id: Schema.optional(Schema.String),
  channel_id: Schema.String.pipe(Schema.pattern(ID_PATTERN, { message: () => "expected a 26-character channel id" })),
  root_id: Schema.optionalWith(Schema.String.pipe(Schema.pattern(/^([a-z0-9]{26})?$/, { message: () => "expected a 26-character root id" })), {
    default: () => ""
  }),
  message: Schema.optionalWith(Schema.String.pipe(Schema.maxLength(70_000)), { default: () => "" }),
  props: Schema.optionalWith(Schema.Record({ key: Schema.String, value: Schema.Unknown }), { default: () => ({}) }),
  file_ids: Schema.optionalWith(Schema.Array(Schema.String.pipe(Schema.pattern(ID_PATTERN))).pipe(Schema.maxItems(10)), { default: () => [] }),
  priority: Schema.optional(Schema.NullOr(PriorityInput))
})

/** What a draft and a scheduled post share: a message not yet posted, by one user, to a channel or thread. */
export interface UnsentMessageJson {
  readonly create_at: number
  readonly update_at: number
  readonly user_id: string
  readonly channel_id: string
  readonly root_id: string
  readonly message: string
  readonly props: Record<string, unknown>
  readonly file_ids: ReadonlyArray<string>
  readonly metadata: Record<string, unknown>
  /** The priority the message will be posted with, when it has one. */
  readonly priority?: PriorityJson
}

export interface DraftJson extends UnsentMessageJson {
  readonly delete_at: number
}
