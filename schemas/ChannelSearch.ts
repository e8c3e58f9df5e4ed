import { Schema } from "effect"
import { ID_PATTERN } from "./Params.ts"

/** POST /channels/search: channels of every team (the System Console's list, and "Browse channels" across teams). */
export const AllChannelsSearchBody = Schema.Struct({
  term: Schema.optionalWith(Schema.String.pipe(Schema.maxLength(256)), { default: () => "" }),
  team_ids: Schema.optional(Schema.Array(Schema.String.pipe(Schema.pattern(ID_PATTERN))).pipe(Schema.maxItems(200))),
  public: Schema.optional(Schema.Boolean),
  private: Schema.optional(Schema.Boolean),
  include_deleted: Schema.optionalWith(Schema.Boolean, { default: () => false }),
  page: Schema.optional(Schema.Number.pipe(Schema.int(), Schema.between(0, 100_000))),
  per_page: Schema.optional(Schema.Number.pipe(Schema.int(), Schema.between(1, 200)))
})
export type AllChannelsSearchBody = typeof AllChannelsSearchBody.Type
