import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { anyText } from "../../layers/SqlArrays.ts"

/**
 * Keeps the invariant the mobile sidebar depends on: every channel a user belongs to sits in exactly one of that
 * user's categories per team (team channels in their team's categories, DMs and GMs in every team's). Statements run
 * inside the caller's transaction.
 */

export const defaultCategoryId = (type: "favorites" | "channels" | "direct_messages", userId: string, teamId: string) =>
  `${type}_${userId}_${teamId}`

export interface Placement {
  readonly userId: string
  readonly channelId: string
  readonly teamId: string
  readonly type: string
}

// New channels go to the top of their category, as in Mattermost; manual orders are rewritten as 0, 10, 20, ...
// so a negative order always sorts first.
const topOrder = (now: number) => -now

/** Files channels the users just joined into their default category, in each team whose categories exist. */
export const place = (sql: SqlClient.SqlClient, placements: ReadonlyArray<Placement>, now: number) =>
  placements.length === 0
    ? Effect.void
    : Effect.asVoid(sql`
        INSERT INTO sidebar_channels (category_id, channel_id, user_id, sort_order)
        SELECT cat.id, e.channel_id, e.user_id, ${topOrder(now)}
        FROM unnest(${placements.map((p) => p.userId)}::text[], ${placements.map((p) => p.channelId)}::text[],
                    ${placements.map((p) => p.teamId)}::text[], ${placements.map((p) => p.type)}::text[])
               AS e(user_id, channel_id, team_id, type)
        JOIN sidebar_categories cat ON cat.user_id = e.user_id AND (
          (e.type IN ('D', 'G') AND cat.type = 'direct_messages') OR
          (e.type IN ('O', 'P') AND cat.type = 'channels' AND cat.team_id = e.team_id))
        WHERE NOT EXISTS (
          SELECT 1 FROM sidebar_channels sc JOIN sidebar_categories c2 ON c2.id = sc.category_id
          WHERE sc.user_id = e.user_id AND sc.channel_id = e.channel_id AND c2.team_id = cat.team_id)
        ON CONFLICT DO NOTHING`)

/** Takes channels the user left out of all of the user's categories. */
export const forget = (sql: SqlClient.SqlClient, userId: string, channelIds: ReadonlyArray<string>) =>
  channelIds.length === 0
    ? Effect.void
    : Effect.asVoid(sql`DELETE FROM sidebar_channels WHERE user_id = ${userId} AND channel_id = ${anyText(sql, channelIds)}`)

/**
 * Creates the user's default categories of a team when missing and files every channel of the user that is in no
 * category yet; idempotent, so reads may call it.
 */
export const ensure = (sql: SqlClient.SqlClient, userId: string, teamId: string, now: number) =>
  Effect.gen(function*() {
    yield* sql`
      INSERT INTO sidebar_categories (id, user_id, team_id, display_name, type, sort_order, sorting)
      VALUES (${defaultCategoryId("favorites", userId, teamId)}, ${userId}, ${teamId}, 'Favorites', 'favorites', 0, ''),
             (${defaultCategoryId("channels", userId, teamId)}, ${userId}, ${teamId}, 'Channels', 'channels', 10, ''),
             (${defaultCategoryId("direct_messages", userId, teamId)}, ${userId}, ${teamId}, 'Direct Messages', 'direct_messages', 20, 'recent')
      ON CONFLICT (id) DO NOTHING`
    yield* sql`
      INSERT INTO sidebar_channels (category_id, channel_id, user_id, sort_order)
      SELECT CASE WHEN c.type IN ('D', 'G') THEN ${defaultCategoryId("direct_messages", userId, teamId)}
                  ELSE ${defaultCategoryId("channels", userId, teamId)} END,
             c.id, ${userId}, ${topOrder(now)} + row_number() OVER (ORDER BY c.display_name, c.id)
      FROM channel_members cm JOIN channels c ON c.id = cm.channel_id
      WHERE cm.user_id = ${userId} AND (c.team_id = ${teamId} OR c.type IN ('D', 'G'))
        AND NOT EXISTS (
          SELECT 1 FROM sidebar_channels sc JOIN sidebar_categories cat ON cat.id = sc.category_id
          WHERE sc.user_id = ${userId} AND sc.channel_id = c.id AND cat.team_id = ${teamId})
      ON CONFLICT DO NOTHING`
  })
