import { Schema } from "effect"
import { ID_PATTERN } from "./Params.ts"

/** POST /channels/search: channels of every team (the System Console's list, and "Browse channels" across teams). */
export const AllChannelsSearchBody = Schema.Struct({
  term: Schema.optionalWith(Schema.String.pipe(Schema.maxLength(256)), { default: () => "" }),
  team_ids: Schema.optional(Schema.Array(Schema.String.pipe(Schema.pattern(ID_PATTERN))).pipe(Schema.maxItems(200))),
  public: Schema.optional(Schema.Boolean),
  private: Schema.optional(Schema.Boolean),
  include_deleted: Schema.optionalWith(Schema.Boolean, { default: () => false }),
  /** Archived channels only (the web app's Browse channels "Archived channels"). */
  deleted: Schema.optionalWith(Schema.Boolean, { default: () => false }),
  exclude_default_channels: Schema.optionalWith(Schema.Boolean, { default: () => false }),
  page: Schema.optional(Schema.Number.pipe(Schema.int(), Schema.between(0, 100_000))),
  per_page: Schema.optional(Schema.Number.pipe(Schema.int(), Schema.between(1, 200)))
})
export type AllChannelsSearchBody = typeof AllChannelsSearchBody.Type

/**
 * Its query: Client4 sends `system_console=false` for a search outside the System Console (`nonAdminSearch`, Browse
 * channels), where a system admin sees what anyone would (public channels of their teams, private ones they are in).
 */
export const AllChannelsSearchQuery = Schema.Struct({
  system_console: Schema.optional(Schema.Literal("true", "false"))
})
