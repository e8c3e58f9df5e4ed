import { HttpRouter } from "@effect/platform"
import { Clock, Effect, Schema } from "effect"
import { authed, CurrentCaller } from "../auth/Guards.ts"
import { LiveStats } from "../health/LiveStats.ts"
import { Access } from "../access/Access.ts"
import { badRequest } from "../http/ApiError.ts"
import * as Decode from "../http/Decode.ts"
import { ok, respondWith, respondWithAll } from "../http/Respond.ts"
import { AnalyticsRow, StringMap } from "../../schemas/wire/System.ts"
import * as AnalyticsRepo from "./AnalyticsRepo.ts"
import { clientLicense } from "./ClientConfig.ts"

/**
 * GET /analytics/old (the System Console's Site Statistics and Team Statistics, and the web app's seat check),
 * GET /trial-license/prev and the in-product notices' "viewed" mark: what an admin's page loads call.
 */

const AnalyticsQuery = Schema.Struct({
  name: Schema.optionalWith(Schema.String, { default: () => "standard" }),
  team_id: Schema.optionalWith(Schema.Union(Schema.Literal(""), Decode.Id), { default: () => "" as const })
})

type Row = AnalyticsRow

/**
 * Mattermost's "standard" rows, in its order and names: the console reads them by name. With a team, channel and
 * post figures count that team's channels, and users its members.
 */
const standard = (teamId: string) =>
  Effect.gen(function*() {
    const live = yield* LiveStats
    const counts = yield* AnalyticsRepo.standard(teamId, yield* Clock.currentTimeMillis)
    const rows: ReadonlyArray<Row> = [
      { name: "channel_open_count", value: counts.openChannels },
      { name: "channel_private_count", value: counts.privateChannels },
      { name: "post_count", value: counts.posts },
      { name: "unique_user_count", value: counts.activeUsers },
      { name: "team_count", value: counts.teams },
      { name: "total_websocket_connections", value: yield* live.websocketConnections },
      { name: "total_master_db_connections", value: counts.dbConnections },
      { name: "total_read_db_connections", value: 0 },
      { name: "daily_active_users", value: counts.dailyActiveUsers },
      { name: "monthly_active_users", value: counts.monthlyActiveUsers },
      { name: "inactive_user_count", value: counts.inactiveUsers }
    ]
    return rows
  })

/**
 * Posts (or distinct posting users) per UTC day over the last 30 days, newest first, days without posts left out,
 * as Mattermost's AnalyticsPostCountsByDay: `{name: "YYYY-MM-DD", value}`. Bots' posts are counted apart.
 */
const perDay = (teamId: string, what: "posts" | "users" | "bot_posts") =>
  Effect.gen(function*() {
    const rows = yield* AnalyticsRepo.perDay(teamId, what, yield* Clock.currentTimeMillis)
    return rows.map((r): Row => ({ name: r.day, value: r.value }))
  })

const NAMES = ["standard", "post_counts_day", "user_counts_with_posts_day", "bot_post_counts_day"] as const

/**
 * GET /analytics/old?name=…&team_id=…: system admins only (Mattermost's get_analytics permission), optionally
 * about one team. An unknown name is a 400 naming the ones that exist; an unknown team a 404.
 */
const analytics = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const q = yield* Decode.query(AnalyticsQuery)
  if (!(NAMES as ReadonlyArray<string>).includes(q.name)) {
    return yield* badRequest("api.analytics.invalid_name.app_error", `Unknown analytics name; expected one of ${NAMES.join(", ")}.`)
  }
  if (q.team_id !== "") yield* (yield* Access).team(caller, q.team_id)
  switch (q.name) {
    case "post_counts_day":
      return yield* respondWithAll(AnalyticsRow, yield* perDay(q.team_id, "posts"))
    case "user_counts_with_posts_day":
      return yield* respondWithAll(AnalyticsRow, yield* perDay(q.team_id, "users"))
    case "bot_post_counts_day":
      return yield* respondWithAll(AnalyticsRow, yield* perDay(q.team_id, "bot_posts"))
    default:
      return yield* respondWithAll(AnalyticsRow, yield* standard(q.team_id))
  }
})

/** GET /trial-license/prev: no trial licence was ever installed here, so Mattermost's answer for none. */
const previousTrial = Effect.gen(function*() {
  return yield* respondWith(StringMap, clientLicense())
})

const NoticesViewBody = Schema.Array(Schema.String.pipe(Schema.maxLength(64))).pipe(Schema.maxItems(100))

/** PUT /system/notices/view: there are no notices to mark viewed (GET answers none); the ids are checked and accepted. */
const noticesViewed = Effect.gen(function*() {
  yield* Decode.body(NoticesViewBody)
  return ok()
})

export const routes = HttpRouter.empty.pipe(
  HttpRouter.get("/api/v4/analytics/old", authed.admin(analytics)),
  HttpRouter.get("/api/v4/trial-license/prev", authed(previousTrial)),
  HttpRouter.put("/api/v4/system/notices/view", authed(noticesViewed))
)
