import { Schema } from "effect"

/** The Role of @mattermost/types (src/system/Roles.ts): the built-in roles and the permissions each grants. */
export const Role = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  display_name: Schema.String,
  description: Schema.String,
  create_at: Schema.Number,
  update_at: Schema.Number,
  delete_at: Schema.Number,
  permissions: Schema.Array(Schema.String),
  scheme_managed: Schema.Boolean,
  built_in: Schema.Boolean
})
export type Role = typeof Role.Type
