import { HttpRouter } from "@effect/platform"
import { Clock, Effect, Schema } from "effect"
import { Db } from "../../layers/Db.ts"
import { requireCaller, requireSystemAdmin } from "../auth/Authenticate.ts"
import { LiveStats } from "../health/LiveStats.ts"
import { Access } from "../access/Access.ts"
import { badRequest } from "../http/ApiError.ts"
import * as Decode from "../http/Decode.ts"
import { json, ok } from "../http/Respond.ts"
import { clientLicense } from "./ClientConfig.ts"

/**
 * GET /analytics/old (the System Console's Site Statistics and Team Statistics, and the web app's seat check),
 * GET /trial-license/prev and the in-product notices' "viewed" mark: what an admin's page loads call.
 */

const AnalyticsQuery = Schema.Struct({
  name: Schema.optionalWith(Schema.String, { default: () => "standard" }),
  team_id: Schema.optionalWith(Schema.Union(Schema.Literal(""), Decode.Id), { default: () => "" as const })
})

const DAY = 86_400_000

interface Row {
  readonly name: string
  readonly value: number
}

/**
 * Mattermost's "standard" rows, in its order and names: the console reads them by name. With a team, channel and
 * post figures count that team's channels, and users its members.
 */
const standard = (teamId: string) =>
  Effect.gen(function*() {
    const db = yield* Db
    const sql = db.sql
    const live = yield* LiveStats
    const now = yield* Clock.currentTimeMillis
    const inTeam = teamId === "" ? sql`TRUE` : sql`c.team_id = ${teamId}`
    const member = teamId === "" ? sql`TRUE` : sql`EXISTS (SELECT 1 FROM team_members tm WHERE tm.user_id = u.id AND tm.team_id = ${teamId} AND tm.delete_at = 0)`
    const [channels] = yield* db.read(sql<{ open: string; private: string }>`
      SELECT count(*) FILTER (WHERE c.type = 'O') AS open, count(*) FILTER (WHERE c.type = 'P') AS private
      FROM channels c WHERE c.delete_at = 0 AND ${inTeam}`)
    const [posts] = yield* db.read(teamId === ""
      ? sql<{ n: string }>`SELECT count(*) AS n FROM posts WHERE delete_at = 0`
      : sql<{ n: string }>`SELECT count(*) AS n FROM posts p JOIN channels c ON c.id = p.channel_id WHERE p.delete_at = 0 AND c.team_id = ${teamId}`)
    const [users] = yield* db.read(sql<{ active: string; inactive: string }>`
      SELECT count(*) FILTER (WHERE u.delete_at = 0) AS active, count(*) FILTER (WHERE u.delete_at <> 0) AS inactive
      FROM users u WHERE NOT u.is_bot AND ${member}`)
    const [teams] = yield* db.read(sql<{ n: string }>`SELECT count(*) AS n FROM teams WHERE delete_at = 0`)
    const [activity] = yield* db.read(sql<{ daily: string; monthly: string }>`
      SELECT count(DISTINCT s.user_id) FILTER (WHERE s.last_activity_at > ${now - DAY}) AS daily,
             count(DISTINCT s.user_id) FILTER (WHERE s.last_activity_at > ${now - 30 * DAY}) AS monthly
      FROM sessions s WHERE s.last_activity_at > ${now - 30 * DAY}`)
    const [connections] = yield* db.read(sql<{ n: string }>`SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database()`)
    const rows: ReadonlyArray<Row> = [
      { name: "channel_open_count", value: Number(channels.open) },
      { name: "channel_private_count", value: Number(channels.private) },
      { name: "post_count", value: Number(posts.n) },
      { name: "unique_user_count", value: Number(users.active) },
      { name: "team_count", value: Number(teams.n) },
      { name: "total_websocket_connections", value: yield* live.websocketConnections },
      { name: "total_master_db_connections", value: Number(connections.n) },
      { name: "total_read_db_connections", value: 0 },
      { name: "daily_active_users", value: Number(activity.daily) },
      { name: "monthly_active_users", value: Number(activity.monthly) },
      { name: "inactive_user_count", value: Number(users.inactive) }
    ]
    return rows
  })

/**
 * Posts (or distinct posting users) per UTC day over the last 30 days, newest first, days without posts left out,
 * as Mattermost's AnalyticsPostCountsByDay: `{name: "YYYY-MM-DD", value}`. Bots' posts are counted apart.
 */
const perDay = (teamId: string, what: "posts" | "users" | "bot_posts") =>
  Effect.gen(function*() {
    const db = yield* Db
    const sql = db.sql
    const now = yield* Clock.currentTimeMillis
    const since = now - 30 * DAY
    const measure = what === "users" ? sql`count(DISTINCT p.user_id)` : sql`count(*)`
    const rows = yield* db.read(sql<{ day: string; value: string }>`
      SELECT to_char(to_timestamp(p.create_at / 1000) AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, ${measure} AS value
      FROM posts p JOIN users u ON u.id = p.user_id
      ${teamId === "" ? sql`` : sql`JOIN channels c ON c.id = p.channel_id AND c.team_id = ${teamId}`}
      WHERE p.create_at >= ${since} AND p.delete_at = 0 AND u.is_bot = ${what === "bot_posts"}
      GROUP BY 1 ORDER BY 1 DESC`)
    return rows.map((r): Row => ({ name: r.day, value: Number(r.value) }))
  })

const NAMES = ["standard", "post_counts_day", "user_counts_with_posts_day", "bot_post_counts_day"] as const

/**
 * GET /analytics/old?name=…&team_id=…: system admins only (Mattermost's get_analytics permission), optionally
 * about one team. An unknown name is a 400 naming the ones that exist; an unknown team a 404.
 */
const analytics = Effect.gen(function*() {
  const caller = yield* requireSystemAdmin
  const q = yield* Decode.query(AnalyticsQuery)
  if (!(NAMES as ReadonlyArray<string>).includes(q.name)) {
    return yield* badRequest("api.analytics.invalid_name.app_error", `Unknown analytics name; expected one of ${NAMES.join(", ")}.`)
  }
  if (q.team_id !== "") yield* (yield* Access).team(caller, q.team_id)
  switch (q.name) {
    case "post_counts_day":
      return json(yield* perDay(q.team_id, "posts"))
    case "user_counts_with_posts_day":
      return json(yield* perDay(q.team_id, "users"))
    case "bot_post_counts_day":
      return json(yield* perDay(q.team_id, "bot_posts"))
    default:
      return json(yield* standard(q.team_id))
  }
})

/** GET /trial-license/prev: no trial licence was ever installed here, so Mattermost's answer for none. */
const previousTrial = Effect.gen(function*() {
  yield* requireCaller
  return json(clientLicense())
})

const NoticesViewBody = Schema.Array(Schema.String.pipe(Schema.maxLength(64))).pipe(Schema.maxItems(100))

/** PUT /system/notices/view: there are no notices to mark viewed (GET answers none); the ids are checked and accepted. */
const noticesViewed = Effect.gen(function*() {
  yield* requireCaller
  yield* Decode.body(NoticesViewBody)
  return ok()
})

export const routes = HttpRouter.empty.pipe(
  HttpRouter.get("/api/v4/analytics/old", analytics),
  HttpRouter.get("/api/v4/trial-license/prev", previousTrial),
  HttpRouter.put("/api/v4/system/notices/view", noticesViewed)
)
