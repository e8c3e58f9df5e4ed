import { Schema } from "effect"
import { QueryBool } from "../Params.ts"
import { Team } from "../wire/Team.ts"

/**
 * What the web client's System Console reads from /api/v1/admin beyond Mattermost's API: where each setting comes
 * from, and the team list with its counts (archived teams included on request).
 */

/** GET /api/v1/admin/config/sources: the settings PUT /api/v4/config/patch changes, and those the environment fixes. */
export const ConfigSources = Schema.Struct({
  writable: Schema.Array(Schema.String).annotations({ description: "\"Section.Setting\" names an administrator can change at run time" }),
  environment: Schema.Record({ key: Schema.String, value: Schema.String })
    .annotations({ description: "\"Section.Setting\" names fixed by the environment, each with the SERVICE_* variable that sets it" })
}).annotations({ identifier: "ConfigSources" })

export const ConsoleTeamsQuery = Schema.Struct({
  term: Schema.optionalWith(Schema.String.pipe(Schema.maxLength(64)), { default: () => "" }),
  include_deleted: Schema.optionalWith(QueryBool, { default: () => false }),
  page: Schema.optionalWith(Schema.NumberFromString.pipe(Schema.int(), Schema.between(0, 100_000)), { default: () => 0 }),
  per_page: Schema.optionalWith(Schema.NumberFromString.pipe(Schema.int(), Schema.between(1, 200)), { default: () => 50 })
})

export const ConsoleTeam = Schema.Struct({
  ...Team.fields,
  member_count: Schema.Number,
  active_member_count: Schema.Number,
  channel_count: Schema.Number.annotations({ description: "open and private channels not archived" })
}).annotations({ identifier: "ConsoleTeam" })

export const ConsoleTeams = Schema.Struct({ teams: Schema.Array(ConsoleTeam), total_count: Schema.Number })
  .annotations({ identifier: "ConsoleTeams" })
