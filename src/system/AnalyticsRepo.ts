import { Effect, Schema } from "effect"
import { Db } from "../../layers/Db.ts"
import { CountRow, Int8, rows } from "../../layers/Rows.ts"

const OpenPrivate = rows("AnalyticsRepo channel counts", Schema.Struct({ open: Int8, private: Int8 }))
const Counts = rows("AnalyticsRepo counts", Schema.Struct({ n: Int8 }))
const ActiveInactive = rows("AnalyticsRepo user counts", Schema.Struct({ active: Int8, inactive: Int8 }))
const DailyMonthly = rows("AnalyticsRepo active users", Schema.Struct({ daily: Int8, monthly: Int8 }))
const Days = rows("AnalyticsRepo per day", Schema.Struct({ day: Schema.String, value: Int8 }))
const CountRows = rows("AnalyticsRepo count", CountRow)

/** The counts behind the System Console's statistics and the server limits. `teamId` "" means the whole site. */

const DAY = 86_400_000

export interface StandardCounts {
  readonly openChannels: number
  readonly privateChannels: number
  readonly posts: number
  readonly activeUsers: number
  readonly inactiveUsers: number
  readonly teams: number
  readonly dailyActiveUsers: number
  readonly monthlyActiveUsers: number
  readonly dbConnections: number
}

/** With a team, channel and post figures count that team's channels, and users its members. */
export const standard = (teamId: string, now: number) =>
  Effect.gen(function*() {
    const db = yield* Db
    const sql = db.sql
    const inTeam = teamId === "" ? sql`TRUE` : sql`c.team_id = ${teamId}`
    const member = teamId === "" ? sql`TRUE` : sql`EXISTS (SELECT 1 FROM team_members tm WHERE tm.user_id = u.id AND tm.team_id = ${teamId} AND tm.delete_at = 0)`
    const [channels] = yield* db.read(sql`
      SELECT count(*) FILTER (WHERE c.type = 'O') AS open, count(*) FILTER (WHERE c.type = 'P') AS private
      FROM channels c WHERE c.delete_at = 0 AND ${inTeam}`.pipe(OpenPrivate))
    const [posts] = yield* db.read(teamId === ""
      ? sql`SELECT count(*) AS n FROM posts WHERE delete_at = 0`.pipe(Counts)
      : sql`SELECT count(*) AS n FROM posts p JOIN channels c ON c.id = p.channel_id WHERE p.delete_at = 0 AND c.team_id = ${teamId}`.pipe(Counts))
    const [users] = yield* db.read(sql`
      SELECT count(*) FILTER (WHERE u.delete_at = 0) AS active, count(*) FILTER (WHERE u.delete_at <> 0) AS inactive
      FROM users u WHERE NOT u.is_bot AND ${member}`.pipe(ActiveInactive))
    const [teams] = yield* db.read(sql`SELECT count(*) AS n FROM teams WHERE delete_at = 0`.pipe(Counts))
    const [activity] = yield* db.read(sql`
      SELECT count(DISTINCT s.user_id) FILTER (WHERE s.last_activity_at > ${now - DAY}) AS daily,
             count(DISTINCT s.user_id) FILTER (WHERE s.last_activity_at > ${now - 30 * DAY}) AS monthly
      FROM sessions s WHERE s.last_activity_at > ${now - 30 * DAY}`.pipe(DailyMonthly))
    const [connections] = yield* db.read(sql`SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database()`.pipe(Counts))
    return {
      openChannels: Number(channels.open),
      privateChannels: Number(channels.private),
      posts: Number(posts.n),
      activeUsers: Number(users.active),
      inactiveUsers: Number(users.inactive),
      teams: Number(teams.n),
      dailyActiveUsers: Number(activity.daily),
      monthlyActiveUsers: Number(activity.monthly),
      dbConnections: Number(connections.n)
    } satisfies StandardCounts
  })

/**
 * Posts (or distinct posting users) per UTC day over the 30 days before `now`, newest first, days without posts left
 * out; bots' posts are counted apart.
 */
export const perDay = (teamId: string, what: "posts" | "users" | "bot_posts", now: number) =>
  Effect.gen(function*() {
    const db = yield* Db
    const sql = db.sql
    const since = now - 30 * DAY
    const measure = what === "users" ? sql`count(DISTINCT p.user_id)` : sql`count(*)`
    const rows = yield* db.read(sql`
      SELECT to_char(to_timestamp(p.create_at / 1000) AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, ${measure} AS value
      FROM posts p JOIN users u ON u.id = p.user_id
      ${teamId === "" ? sql`` : sql`JOIN channels c ON c.id = p.channel_id AND c.team_id = ${teamId}`}
      WHERE p.create_at >= ${since} AND p.delete_at = 0 AND u.is_bot = ${what === "bot_posts"}
      GROUP BY 1 ORDER BY 1 DESC`.pipe(Days))
    return rows.map((r) => ({ day: r.day, value: Number(r.value) }))
  })

/** Active users, bots aside. */
export const activeUserCount = Effect.gen(function*() {
  const db = yield* Db
  const [row] = yield* db.read(db.sql`SELECT count(*) AS count FROM users WHERE delete_at = 0 AND NOT is_bot`.pipe(CountRows))
  return Number(row.count)
})
