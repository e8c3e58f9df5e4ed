import { Schema } from "effect"

/** The Scheme of @mattermost/types (a permission scheme: a team's or channel's own roles), src/system/SchemeRoutes.ts. */
export const Scheme = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  description: Schema.String,
  display_name: Schema.String,
  create_at: Schema.Number,
  update_at: Schema.Number,
  delete_at: Schema.Number,
  scope: Schema.String,
  default_team_admin_role: Schema.String,
  default_team_user_role: Schema.String,
  default_team_guest_role: Schema.String,
  default_channel_admin_role: Schema.String,
  default_channel_user_role: Schema.String,
  default_channel_guest_role: Schema.String
})
export type Scheme = typeof Scheme.Type
