import { Schema } from "effect"
import { Int8Text } from "../../layers/Rows.ts"

/**
 * The teams and team_members rows as the repos read them (decoded with layers/Rows.ts). Their bigint columns stay
 * the driver's text, as the row types of TeamWire.ts declare them (the wire mapping converts them).
 */
export const TeamRow = Schema.Struct({
  id: Schema.String,
  create_at: Int8Text,
  update_at: Int8Text,
  delete_at: Int8Text,
  display_name: Schema.String,
  name: Schema.String,
  description: Schema.String,
  email: Schema.String,
  type: Schema.String,
  company_name: Schema.String,
  allowed_domains: Schema.String,
  invite_id: Schema.String,
  allow_open_invite: Schema.Boolean,
  last_team_icon_update: Int8Text,
  group_constrained: Schema.Boolean
})

export const TeamMemberRow = Schema.Struct({
  team_id: Schema.String,
  user_id: Schema.String,
  roles: Schema.String,
  delete_at: Int8Text,
  scheme_guest: Schema.Boolean,
  scheme_user: Schema.Boolean,
  scheme_admin: Schema.Boolean,
  create_at: Int8Text
})

/** A team's unread totals (sums: null when the user has no channel in it). */
export const TeamUnreadRow = Schema.Struct({
  team_id: Schema.String,
  msg_count: Schema.NullOr(Int8Text),
  mention_count: Schema.NullOr(Int8Text),
  msg_count_root: Schema.NullOr(Int8Text),
  mention_count_root: Schema.NullOr(Int8Text)
})

/** A member row with its unread totals (TeamQueries.ts `memberColumns`). */
export const MemberWithUnreads = Schema.Struct({ ...TeamMemberRow.fields, ...TeamUnreadRow.fields })
