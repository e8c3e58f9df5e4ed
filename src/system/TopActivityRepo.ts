import { Effect, Schema } from "effect"
import { Db } from "../../layers/Db.ts"
import { Int8, rows } from "../../layers/Rows.ts"

/**
 * The busiest channels and teams by posts over the last days, people's own posts only (bots' posts and the system
 * posts written for joins and changes aside): the System Console's Site Statistics ("Top channels", "Top teams").
 * Direct and group messages are nobody's team and are left out.
 */
const DAY = 86_400_000

const ChannelRows = rows("TopActivityRepo channels", Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  display_name: Schema.String,
  type: Schema.String,
  team_id: Schema.String,
  team_display_name: Schema.String,
  post_count: Int8
}))

const TeamRows = rows("TopActivityRepo teams", Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  display_name: Schema.String,
  post_count: Int8,
  active_member_count: Int8
}))

export const top = (days: number, limit: number, now: number) =>
  Effect.gen(function*() {
    const db = yield* Db
    const sql = db.sql
    const since = now - days * DAY
    const channels = yield* db.read(sql`
      WITH counted AS (
        SELECT p.channel_id, count(*) AS post_count
        FROM posts p JOIN users u ON u.id = p.user_id
        WHERE p.create_at >= ${since} AND p.delete_at = 0 AND NOT u.is_bot AND p.type NOT LIKE 'system\\_%'
        GROUP BY p.channel_id
      )
      SELECT c.id, c.name, c.display_name, c.type, c.team_id, t.display_name AS team_display_name, counted.post_count
      FROM counted JOIN channels c ON c.id = counted.channel_id JOIN teams t ON t.id = c.team_id
      WHERE c.type IN ('O', 'P') AND c.delete_at = 0
      ORDER BY counted.post_count DESC, c.display_name
      LIMIT ${limit}`.pipe(ChannelRows))
    const teams = yield* db.read(sql`
      WITH counted AS (
        SELECT c.team_id, count(*) AS post_count
        FROM posts p JOIN users u ON u.id = p.user_id JOIN channels c ON c.id = p.channel_id
        WHERE p.create_at >= ${since} AND p.delete_at = 0 AND NOT u.is_bot AND p.type NOT LIKE 'system\\_%' AND c.type IN ('O', 'P')
        GROUP BY c.team_id
      )
      SELECT t.id, t.name, t.display_name, counted.post_count,
             (SELECT count(*) FROM team_members tm JOIN users mu ON mu.id = tm.user_id
              WHERE tm.team_id = t.id AND tm.delete_at = 0 AND mu.delete_at = 0 AND NOT mu.is_bot) AS active_member_count
      FROM counted JOIN teams t ON t.id = counted.team_id
      WHERE t.delete_at = 0
      ORDER BY counted.post_count DESC, t.display_name
      LIMIT ${limit}`.pipe(TeamRows))
    return { channels, teams }
  })
