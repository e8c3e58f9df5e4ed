import type { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { Invalid } from "../../schemas/Errors.ts"
import { CountRow, IdRow, rows } from "../../layers/Rows.ts"
import * as ChannelMembership from "../channels/Membership.ts"
import type { ChannelTarget } from "../channels/Membership.ts"

const UserIds = rows("team Membership add", Schema.Struct({ user_id: Schema.String }))
const ChannelTargets = rows("team Membership default channels", Schema.Struct({ id: Schema.String, team_id: Schema.String, type: Schema.String }))
const Ids = rows("team Membership channels", IdRow)
const Counts = rows("team Membership active member count", CountRow)

const TEAM_MEMBERS_LOCK = 7_300_181

const teamFull = () =>
  new Invalid({
    id: "app.team.join_user_to_team.max_accounts.app_error",
    message: "This team has reached the maximum number of allowed accounts. Contact your System Administrator to set a higher limit."
  })

/** Team membership writes shared by team creation and joins; run inside the caller's transaction. */

/** The channels every team member joins, created with the team. */
export const DEFAULT_CHANNELS = [
  { name: "town-square", display_name: "Town Square" },
  { name: "off-topic", display_name: "Off-Topic" }
] as const

export interface TeamJoin {
  /** Users who became (or became again) members of the team. */
  readonly users: ReadonlyArray<string>
  readonly channels: ReadonlyArray<ChannelMembership.NewMember>
}

/** Adds users to the team (restoring former members) and to its default channels. */
export const add = (sql: SqlClient.SqlClient, teamId: string, userIds: ReadonlyArray<string>, admin: boolean, now: number) =>
  Effect.gen(function*() {
    if (userIds.length === 0) return { users: [], channels: [] } satisfies TeamJoin
    const joined = yield* sql`
      INSERT INTO team_members (team_id, user_id, scheme_admin, create_at)
      SELECT ${teamId}, u, ${admin}, ${now} FROM unnest(${userIds}::text[]) AS u
      ON CONFLICT (team_id, user_id) DO UPDATE SET delete_at = 0, scheme_admin = EXCLUDED.scheme_admin, create_at = EXCLUDED.create_at
        WHERE team_members.delete_at <> 0
      RETURNING user_id`.pipe(UserIds)
    const users = joined.map((r) => r.user_id)
    const defaults = yield* sql`
      SELECT id, team_id, type FROM channels
      WHERE team_id = ${teamId} AND name IN ${sql.in(DEFAULT_CHANNELS.map((c) => c.name))} AND delete_at = 0`.pipe(ChannelTargets)
    const channels = yield* ChannelMembership.add(
      sql,
      users.flatMap((userId) => defaults.map((channel) => ({ channel, userId, admin: false }))),
      now
    )
    return { users, channels } satisfies TeamJoin
  })

/**
 * `add` within Mattermost's TeamSettings.MaxUsersPerTeam: a join that would take the team's active members past
 * `maxUsers` is refused whole. The count and the insert hold a lock on the team's joins, so racing joins cannot pass
 * the limit together.
 */
export const addWithin = (sql: SqlClient.SqlClient, teamId: string, userIds: ReadonlyArray<string>, admin: boolean, now: number, maxUsers: number) =>
  Effect.gen(function*() {
    const joining = [...new Set(userIds)]
    if (joining.length === 0) return yield* add(sql, teamId, joining, admin, now)
    yield* sql`SELECT pg_advisory_xact_lock(${TEAM_MEMBERS_LOCK}, hashtext(${teamId}))`
    // Active members other than those joining now (who may be members already): deactivated accounts do not count.
    const [{ count }] = yield* sql`
      SELECT count(*) AS count FROM team_members tm JOIN users u ON u.id = tm.user_id
      WHERE tm.team_id = ${teamId} AND tm.delete_at = 0 AND u.delete_at = 0 AND NOT (tm.user_id = ANY(${joining}::text[]))`.pipe(Counts)
    if (count + joining.length > maxUsers) return yield* teamFull()
    return yield* add(sql, teamId, joining, admin, now)
  })

/** Leaves the team (soft, as Mattermost keeps the row with delete_at) and all of its channels. */
export const remove = (sql: SqlClient.SqlClient, teamId: string, userId: string, now: number) =>
  Effect.gen(function*() {
    const left = yield* sql`
      UPDATE team_members SET delete_at = ${now}, scheme_admin = false
      WHERE team_id = ${teamId} AND user_id = ${userId} AND delete_at = 0 RETURNING user_id`
    if (left.length === 0) return { left: false, channels: [] as ReadonlyArray<string> }
    const channelIds = yield* sql`
      SELECT c.id FROM channel_members cm JOIN channels c ON c.id = cm.channel_id
      WHERE cm.user_id = ${userId} AND c.team_id = ${teamId}`.pipe(Ids)
    const channels = yield* ChannelMembership.remove(sql, userId, channelIds.map((r) => r.id))
    return { left: true, channels }
  })
