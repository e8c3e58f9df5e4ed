import { Effect, Schema } from "effect"
import { Db } from "../../layers/Db.ts"
import { Int8, rows } from "../../layers/Rows.ts"
import { likeContaining } from "../search/Like.ts"
import { roleClause } from "./UserDirectory.ts"
import { UserRow } from "./UserRow.ts"
import { anyText } from "../../layers/SqlArrays.ts"

/** The System Console's user counts and the paged user report. */

const Counts = rows("UserReportRepo count", Schema.Struct({ n: Int8 }))
const Users = rows("UserReportRepo reportPage", UserRow)
const Activity = rows("UserReportRepo postingActivity", Schema.Struct({ user_id: Schema.String, total: Int8, last: Int8, days: Int8 }))

const DAY = 86_400_000

export interface FilteredCount {
  readonly includeDeleted: boolean
  readonly includeBots: boolean
  readonly inTeam: string | undefined
  readonly inChannel: string | undefined
  readonly roles: { readonly system: ReadonlyArray<string>; readonly team: ReadonlyArray<string>; readonly channel: ReadonlyArray<string> }
}

/** How many users match the console's filters (GET /users/stats/filtered). */
export const filteredCount = (f: FilteredCount) =>
  Effect.gen(function*() {
    const db = yield* Db
    const sql = db.sql
    const scope = { inTeam: f.inTeam, inChannel: f.inChannel }
    const [row] = yield* db.read(sql`
      SELECT count(*) AS n FROM users u
      WHERE ${f.includeDeleted ? sql`TRUE` : sql`u.delete_at = 0`}
        AND ${f.includeBots ? sql`TRUE` : sql`NOT u.is_bot`}
        AND ${scope.inTeam === undefined ? sql`TRUE` : sql`EXISTS (SELECT 1 FROM team_members tm WHERE tm.user_id = u.id AND tm.team_id = ${scope.inTeam} AND tm.delete_at = 0)`}
        AND ${scope.inChannel === undefined ? sql`TRUE` : sql`EXISTS (SELECT 1 FROM channel_members cm WHERE cm.user_id = u.id AND cm.channel_id = ${scope.inChannel})`}
        ${roleClause(sql, f.roles, scope)}`.pipe(Counts))
    return Number(row.n)
  })

/** The report's filters, as the console sends them ("" for no filter). */
export interface ReportFilter {
  readonly role_filter: string
  readonly team_filter: string
  readonly has_no_team: boolean
  readonly hide_active: boolean
  readonly hide_inactive: boolean
  readonly search_term: string
}

/** The console's user filters as one WHERE clause over `users u`. */
const reportWhere = (sql: Db["Type"]["sql"], f: ReportFilter) => {
  const term = f.search_term.trim()
  return sql`NOT u.is_bot
    AND ${f.hide_active ? sql`u.delete_at <> 0` : sql`TRUE`}
    AND ${f.hide_inactive ? sql`u.delete_at = 0` : sql`TRUE`}
    AND ${f.role_filter === "" ? sql`TRUE` : sql`${f.role_filter} = ANY (string_to_array(u.roles, ' '))`}
    AND ${f.team_filter === "" ? sql`TRUE` : sql`EXISTS (SELECT 1 FROM team_members tm WHERE tm.user_id = u.id AND tm.team_id = ${f.team_filter} AND tm.delete_at = 0)`}
    AND ${f.has_no_team ? sql`NOT EXISTS (SELECT 1 FROM team_members tm WHERE tm.user_id = u.id AND tm.delete_at = 0)` : sql`TRUE`}
    AND ${term === "" ? sql`TRUE` : sql`(u.username ILIKE ${likeContaining(term)} OR u.email ILIKE ${likeContaining(term)} OR u.first_name ILIKE ${likeContaining(term)}
          OR u.last_name ILIKE ${likeContaining(term)} OR u.nickname ILIKE ${likeContaining(term)})`}`
}

export type SortColumn = "username" | "email" | "create_at" | "first_name" | "last_name" | "nickname"

export interface ReportPage {
  readonly column: SortColumn
  readonly ascending: boolean
  /** The row to start after: its sort column's value and its id; none for the first page. */
  readonly after: { readonly value: string; readonly id: string } | undefined
  readonly limit: number
}

/** One page of the report, cursor-paged on the sort column and the id. */
export const reportPage = (f: ReportFilter, p: ReportPage) =>
  Effect.gen(function*() {
    const db = yield* Db
    const sql = db.sql
    const column = p.column
    const cursor = p.after === undefined
      ? sql`TRUE`
      : column === "create_at"
      ? (p.ascending ? sql`(u.create_at, u.id) > (${Number(p.after.value || 0)}, ${p.after.id})` : sql`(u.create_at, u.id) < (${Number(p.after.value || 0)}, ${p.after.id})`)
      : (p.ascending
        ? sql`(${sql(column)}, u.id) > (${p.after.value}, ${p.after.id})`
        : sql`(${sql(column)}, u.id) < (${p.after.value}, ${p.after.id})`)
    const order = p.ascending ? sql`${sql(column)} ASC, u.id ASC` : sql`${sql(column)} DESC, u.id DESC`
    return yield* db.read(sql`
      SELECT u.* FROM users u WHERE ${reportWhere(sql, f)} AND ${cursor} ORDER BY ${order} LIMIT ${p.limit}`.pipe(Users))
  })

/** Each user's live posts since `since`: how many, the last one's time, on how many days (one aggregate). */
/** A user's own posting: the system posts written in their name (joins, header changes) are not theirs to count. */
export const postingActivity = (userIds: ReadonlyArray<string>, since: number) =>
  Effect.gen(function*() {
    if (userIds.length === 0) return []
    const db = yield* Db
    const sql = db.sql
    return yield* db.read(sql`
      SELECT user_id, count(*) AS total, max(create_at) AS last,
             count(DISTINCT (create_at / ${DAY})) AS days
      FROM posts WHERE user_id = ${anyText(sql, userIds)} AND delete_at = 0 AND create_at >= ${since}
        AND type NOT LIKE 'system\_%'
      GROUP BY user_id`.pipe(Activity))
  })

/** How many users the report's filters match. */
export const reportCount = (f: ReportFilter) =>
  Effect.gen(function*() {
    const db = yield* Db
    const [row] = yield* db.read(db.sql`SELECT count(*) AS n FROM users u WHERE ${reportWhere(db.sql, f)}`.pipe(Counts))
    return Number(row.n)
  })
