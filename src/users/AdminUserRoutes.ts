import { HttpRouter } from "@effect/platform"
import { Clock, Effect, Option, Schema } from "effect"
import { RoleNamesParam } from "../../schemas/users.ts"
import { UserReport, UserReportCount, UsersStats } from "../../schemas/wire/User.ts"
import { authed, CurrentCaller } from "../auth/Guards.ts"
import { badRequest, invalidParam, notFound } from "../http/ApiError.ts"
import * as Decode from "../http/Decode.ts"
import { ok, respondWith, respondWithAll } from "../http/Respond.ts"
import { activeUserCount } from "../system/AnalyticsRepo.ts"
import { setSystemRoles } from "./UserAdmin.ts"
import { UserDirectory } from "./UserDirectory.ts"
import * as UserReportRepo from "./UserReportRepo.ts"
import { toWire } from "./UserWire.ts"
import { targetUserId } from "../access/UserParam.ts"

/**
 * What the System Console's user pages call: user counts, the paged user report of User Management > Users, and
 * changing a user's system roles (promote to admin, demote).
 */

/** Go's strconv.ParseBool truths, as the console sends them. */
const Flag = Schema.optionalWith(
  Schema.transform(Schema.String, Schema.Boolean, {
    strict: true,
    decode: (s) => ["1", "t", "T", "true", "TRUE", "True"].includes(s),
    encode: (b) => (b ? "true" : "false")
  }),
  { default: () => false }
)
const OptionalId = Schema.optionalWith(Schema.Union(Schema.Literal(""), Decode.Id), { default: () => "" as const })

/** GET /users/stats: the active users (bots aside) the caller can see; everyone for system admins. */
const stats = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  if (caller.isSystemAdmin) return yield* respondWith(UsersStats, { total_users_count: yield* activeUserCount })
  const known = yield* (yield* UserDirectory).knownIds(caller)
  return yield* respondWith(UsersStats, { total_users_count: new Set([...known, caller.userId]).size })
})

const FilteredQuery = Schema.Struct({
  in_team: OptionalId,
  in_channel: OptionalId,
  include_deleted: Flag,
  include_bots: Flag,
  include_remote_users: Flag,
  roles: RoleNamesParam,
  team_roles: RoleNamesParam,
  channel_roles: RoleNamesParam
})

/** GET /users/stats/filtered (system admins): how many users match the console's filters. */
const filteredStats = Effect.gen(function*() {
  const q = yield* Decode.query(FilteredQuery)
  const count = yield* UserReportRepo.filteredCount({
    includeDeleted: q.include_deleted,
    includeBots: q.include_bots,
    inTeam: q.in_team === "" ? undefined : q.in_team,
    inChannel: q.in_channel === "" ? undefined : q.in_channel,
    roles: { system: q.roles, team: q.team_roles, channel: q.channel_roles }
  })
  return yield* respondWith(UsersStats, { total_users_count: count })
})

const SORT_COLUMNS = { Username: "username", Email: "email", CreateAt: "create_at", FirstName: "first_name", LastName: "last_name", Nickname: "nickname" } as const

const ReportFilter = {
  role_filter: Schema.optionalWith(Schema.String.pipe(Schema.maxLength(64)), { default: () => "" }),
  team_filter: OptionalId,
  has_no_team: Flag,
  hide_active: Flag,
  hide_inactive: Flag,
  search_term: Schema.optionalWith(Schema.String.pipe(Schema.maxLength(256)), { default: () => "" }),
  guest_filter: Schema.optionalWith(Schema.String, { default: () => "" }),
  date_range: Schema.optionalWith(Schema.Literal("all_time", "last_30_days", "previous_month", "last_6_months"), { default: () => "all_time" as const })
}

const ReportQuery = Schema.Struct({
  ...ReportFilter,
  sort_column: Schema.optionalWith(Schema.Literal("Username", "Email", "CreateAt", "FirstName", "LastName", "Nickname"), { default: () => "Username" as const }),
  sort_direction: Schema.optionalWith(Schema.Literal("asc", "desc"), { default: () => "asc" as const }),
  direction: Schema.optionalWith(Schema.Literal("next", "prev"), { default: () => "next" as const }),
  page_size: Decode.QueryInt(50, { min: 1, max: 100 }),
  from_column_value: Schema.optionalWith(Schema.String.pipe(Schema.maxLength(256)), { default: () => "" }),
  from_id: OptionalId
})

const CountQuery = Schema.Struct(ReportFilter)

const DAY = 86_400_000

/** The start of a report's date range (posts counted from then on), 0 for all time. */
const rangeStart = (range: Schema.Schema.Type<typeof CountQuery>["date_range"], now: number) => {
  const today = new Date(now)
  switch (range) {
    case "last_30_days":
      return now - 30 * DAY
    case "previous_month":
      return Date.UTC(today.getUTCFullYear(), today.getUTCMonth() - 1, 1)
    case "last_6_months":
      return now - 183 * DAY
    default:
      return 0
  }
}

/**
 * GET /reports/users (system admins): one page of users for the console's table, cursor-paged on the sort column
 * and the id, with each user's last login and their posting in the date range (one aggregate over the page).
 */
const userReport = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const q = yield* Decode.query(ReportQuery)
  const column = SORT_COLUMNS[q.sort_column]
  if (column === "create_at" && q.from_column_value !== "" && !/^\d{1,16}$/.test(q.from_column_value)) return yield* invalidParam("from_column_value")
  // Going back ("prev") reads the other way from the cursor and turns the page round again.
  const rows = yield* UserReportRepo.reportPage(q, {
    column,
    ascending: (q.sort_direction === "asc") === (q.direction === "next"),
    after: q.from_id === "" ? undefined : { value: q.from_column_value, id: q.from_id },
    limit: q.page_size
  })
  const page = q.direction === "prev" ? [...rows].reverse() : rows
  const now = yield* Clock.currentTimeMillis
  const since = rangeStart(q.date_range, now)
  const activity = yield* UserReportRepo.postingActivity(page.map((u) => u.id), since)
  const byUser = new Map(activity.map((a) => [a.user_id, a]))
  return yield* respondWithAll(UserReport, page.map((row) => {
    const posts = byUser.get(row.id)
    return {
      ...toWire(row, { userId: caller.userId, isSystemAdmin: true }),
      last_login: Number(row.last_login ?? 0),
      total_posts: Number(posts?.total ?? 0),
      days_active: Number(posts?.days ?? 0),
      ...(posts !== undefined ? { last_post_date: Number(posts.last) } : {})
    }
  }))
})

/** GET /reports/users/count (system admins): how many users the same filters match (a bare number, as Mattermost). */
const userReportCount = Effect.gen(function*() {
  const q = yield* Decode.query(CountQuery)
  return yield* respondWith(UserReportCount, yield* UserReportRepo.reportCount(q))
})

const RolesBody = Schema.Struct({ roles: Schema.String.pipe(Schema.maxLength(256)) })

/** The system roles a user may hold here: every user is a system_user, optionally a system_admin. */
/** In Mattermost's order; system_user_access_token grants a user personal access tokens for themselves. */
const ASSIGNABLE = ["system_admin", "system_user", "system_user_access_token"]

/**
 * PUT /users/{user_id}/roles (system admins): replaces the user's system roles, as the console's "Manage roles"
 * and "Promote to admin" do; the user's sessions take the new roles at once. An admin cannot demote themself
 * (the server would lose its last way in); `system_user` is required, as in Mattermost.
 */
const updateRoles = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const userId = yield* targetUserId
  const { roles } = yield* Decode.body(RolesBody)
  const wanted = [...new Set(roles.split(" ").filter((r) => r !== ""))]
  if (!wanted.includes("system_user") || wanted.some((r) => !ASSIGNABLE.includes(r))) {
    return yield* badRequest("api.context.invalid_body_param.app_error", "Invalid roles: every user is a system_user and may also be a system_admin and a system_user_access_token.")
  }
  if (userId === caller.userId && !wanted.includes("system_admin")) {
    return yield* badRequest("api.user.update_user_roles.self_demotion.app_error", "You cannot remove your own system admin role.")
  }
  const value = ASSIGNABLE.filter((r) => wanted.includes(r)).join(" ")
  const now = yield* Clock.currentTimeMillis
  const updated = yield* setSystemRoles(userId, value, now)
  if (Option.isNone(updated)) return yield* notFound("app.user.missing_account.const", "Unable to find the user.")
  return ok()
})

export const routes = HttpRouter.empty.pipe(
  HttpRouter.get("/api/v4/users/stats", authed(stats)),
  HttpRouter.get("/api/v4/users/stats/filtered", authed.admin(filteredStats)),
  HttpRouter.get("/api/v4/reports/users", authed.admin(userReport)),
  HttpRouter.get("/api/v4/reports/users/count", authed.admin(userReportCount)),
  HttpRouter.put("/api/v4/users/:user_id/roles", authed.admin(updateRoles))
)


