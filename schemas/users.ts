import { Schema } from "effect"

/**
 * Role filters of the user lists and counts (GET /users, POST /users/search, GET /users/stats/filtered): the System
 * Console's team and channel member lists filter by `roles` (system roles), `team_roles` and `channel_roles`.
 */

/** A role name as Mattermost spells them (`system_admin`, `team_user`, ...). */
const RoleName = Schema.String.pipe(Schema.pattern(/^[a-z0-9_]{1,64}$/, { message: () => "expected role names such as system_admin or team_user" }))

/** In a query string: role names separated by commas (Client4 joins an array with commas); "" is no filter. */
export const RoleNamesParam = Schema.optionalWith(
  Schema.transform(
    Schema.String.pipe(Schema.maxLength(1000, { message: () => "expected at most 1000 characters of role names" })),
    Schema.Array(RoleName),
    {
      strict: true,
      decode: (raw) => raw.split(",").map((s) => s.trim()).filter((s) => s !== ""),
      encode: (names) => names.join(",")
    }
  ),
  { default: () => [] }
)

/** In a JSON body: an array of role names. */
export const RoleNamesField = Schema.optionalWith(Schema.Array(RoleName).pipe(Schema.maxItems(20)), { default: () => [] })
