import { Clock, Effect, Schema } from "effect"
import { Db } from "../../layers/Db.ts"
import { CountRow, rows } from "../../layers/Rows.ts"
import { Invalid } from "../../schemas/Errors.ts"
import { ChannelRow } from "./ChannelRows.ts"
import * as Membership from "./Membership.ts"

const Channels = rows("ChannelMove channel", ChannelRow)
const Outsiders = rows("ChannelMove outsiders", Schema.Struct({ user_id: Schema.String }))
const Counts = rows("ChannelMove team channel count", CountRow)
const LiveTeams = rows("ChannelMove live team", Schema.Struct({ id: Schema.String }))

/** The same lock as channel creation's (ChannelRepo.create): a move counts against the target team's limit too. */
const TEAM_CHANNELS_LOCK = 7_300_180

export interface Moved {
  readonly channel: ChannelRow
  /** Members who were not in the target team and left the channel (only with `force`). */
  readonly removed: ReadonlyArray<string>
}

/**
 * POST /channels/{id}/move: gives a public or private channel to another team, as Mattermost's MoveChannel does. Every
 * member must be a member of that team, unless `force`, which takes the others out of the channel. The target team
 * must have no channel of that name and room under its channel limit. Webhooks of the channel follow it; every
 * member's sidebar files it again under the new team (Sidebar.ensure files channels found in no category on read).
 */
export const move = (channelId: string, teamId: string, force: boolean, maxChannels: number) =>
  Effect.gen(function*() {
    const db = yield* Db
    const sql = db.sql
    return yield* db.transaction(Effect.gen(function*() {
      yield* sql`SELECT pg_advisory_xact_lock(${TEAM_CHANNELS_LOCK}, hashtext(${teamId}))`
      const live = yield* sql`SELECT id FROM teams WHERE id = ${teamId} AND delete_at = 0`.pipe(LiveTeams)
      if (live.length === 0) {
        return yield* new Invalid({ id: "api.channel.move_channel.team.app_error", message: "The target team does not exist or is archived." })
      }
      const [channel] = yield* sql`SELECT * FROM channels WHERE id = ${channelId} FOR UPDATE`.pipe(Channels)
      const outsiders = yield* sql`
        SELECT cm.user_id FROM channel_members cm
        WHERE cm.channel_id = ${channelId} AND NOT EXISTS (
          SELECT 1 FROM team_members tm WHERE tm.team_id = ${teamId} AND tm.user_id = cm.user_id AND tm.delete_at = 0)`.pipe(Outsiders)
      if (outsiders.length > 0 && !force) {
        return yield* new Invalid({
          id: "app.channel.move_channel.members_do_not_match.error",
          message: `${outsiders.length} ${outsiders.length === 1 ? "member of the channel is" : "members of the channel are"} not in the target team: add them to it, or move with force to remove them from the channel.`
        })
      }
      const [{ count }] = yield* sql`
        SELECT count(*) AS count FROM channels WHERE team_id = ${teamId} AND delete_at = 0 AND type IN ('O', 'P')`.pipe(Counts)
      if (Number(count) >= maxChannels) {
        return yield* new Invalid({ id: "store.sql_channel.save_channel.limit.app_error", message: "The target team has reached its limit of channels." })
      }
      const [clash] = yield* sql`SELECT * FROM channels WHERE team_id = ${teamId} AND name = ${channel.name}`.pipe(Channels)
      if (clash !== undefined) {
        return yield* new Invalid({ field: "name", id: "store.sql_channel.save_channel.exists.app_error", message: "A channel with that name already exists on the target team." })
      }
      for (const { user_id } of outsiders) yield* Membership.remove(sql, user_id, [channelId])
      const now = yield* Clock.currentTimeMillis
      const [moved] = yield* sql`UPDATE channels SET team_id = ${teamId}, update_at = ${now} WHERE id = ${channelId} RETURNING *`.pipe(Channels)
      yield* sql`DELETE FROM sidebar_channels WHERE channel_id = ${channelId}`
      yield* sql`UPDATE incoming_webhooks SET team_id = ${teamId} WHERE channel_id = ${channelId}`
      yield* sql`UPDATE outgoing_webhooks SET team_id = ${teamId} WHERE channel_id = ${channelId}`
      return { channel: moved, removed: outsiders.map((o) => o.user_id) } satisfies Moved
    }))
  })
