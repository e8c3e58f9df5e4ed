import { Effect, Option, Schema } from "effect"
import { Db } from "../../layers/Db.ts"
import { IdRow, rows } from "../../layers/Rows.ts"
import { accountLimits } from "../system/ServerSettings.ts"
import * as Membership from "./Membership.ts"
import { memberColumns, unreadJoin } from "./TeamQueries.ts"
import type { TeamMemberRow, TeamUnreadRow } from "./TeamWire.ts"
import { MemberWithUnreads as MemberWithUnreadsRow, TeamRow, TeamUnreadRow as TeamUnreadRowSchema } from "./TeamRows.ts"
import { anyText } from "../../layers/SqlArrays.ts"

const Members = rows("TeamMemberRepo members", MemberWithUnreadsRow)
const TeamsWithMember = rows("TeamMemberRepo teamForJoin", Schema.Struct({ ...TeamRow.fields, member: Schema.Boolean }))
const TeamsWithAdmin = rows("TeamMemberRepo teams with admin", Schema.Struct({ ...TeamRow.fields, admin: Schema.Boolean }))
const Unreads = rows("TeamMemberRepo unreads", TeamUnreadRowSchema)
const Ids = rows("TeamMemberRepo ids", IdRow)

/** Team memberships' SQL: member rows always come with their unread totals (TeamQueries.ts). */

export type MemberWithUnreads = TeamMemberRow & TeamUnreadRow

/** The member rows (any state) of these users in the team. */
export const membersOf = (teamId: string, userIds: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    if (userIds.length === 0) return []
    const db = yield* Db
    const sql = db.sql
    return yield* db.read(sql`
      SELECT ${memberColumns(sql)} FROM team_members tm ${unreadJoin(sql)}
      WHERE tm.team_id = ${teamId} AND tm.user_id = ${anyText(sql, userIds)}`.pipe(Members))
  })

/** A team (any state) with whether the user is a live member of it. */
export const teamForJoin = (teamId: string, userId: string) =>
  Effect.gen(function*() {
    const db = yield* Db
    const [team] = yield* db.read(db.sql`
      SELECT t.*, EXISTS (SELECT 1 FROM team_members tm WHERE tm.team_id = t.id AND tm.user_id = ${userId} AND tm.delete_at = 0) AS member
      FROM teams t WHERE t.id = ${teamId}`.pipe(TeamsWithMember))
    return Option.fromNullable(team)
  })

/** Those of these ids that name active users. */
export const activeUserIds = (userIds: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const db = yield* Db
    const sql = db.sql
    const rows = yield* db.read(sql`SELECT id FROM users WHERE id = ${anyText(sql, userIds)} AND delete_at = 0`.pipe(Ids))
    return new Set(rows.map((r) => r.id))
  })

/** Adds the users as plain members (Membership.add) in one transaction, within TeamSettings.MaxUsersPerTeam. */
export const add = (teamId: string, userIds: ReadonlyArray<string>, now: number) =>
  Effect.gen(function*() {
    const db = yield* Db
    const { maxUsersPerTeam } = yield* accountLimits
    return yield* db.transaction(Membership.addWithin(db.sql, teamId, userIds, false, now, maxUsersPerTeam))
  })

/** Removes the member from the team and its channels (Membership.remove) in one transaction. */
export const remove = (teamId: string, userId: string, now: number) =>
  Effect.flatMap(Db, (db) => db.transaction(Membership.remove(db.sql, teamId, userId, now)))

export interface MemberPage {
  readonly sortByUsername: boolean
  readonly excludeDeletedUsers: boolean
  readonly limit: number
  readonly offset: number
}

/** A page of the team's live members. */
export const listLive = (teamId: string, page: MemberPage) =>
  Effect.gen(function*() {
    const db = yield* Db
    const sql = db.sql
    return yield* db.read(sql`
      SELECT ${memberColumns(sql)} FROM team_members tm JOIN users usr ON usr.id = tm.user_id ${unreadJoin(sql)}
      WHERE tm.team_id = ${teamId} AND tm.delete_at = 0 ${page.excludeDeletedUsers ? sql`AND usr.delete_at = 0` : sql``}
      ORDER BY ${page.sortByUsername ? sql`usr.username` : sql`tm.user_id`}
      LIMIT ${page.limit} OFFSET ${page.offset}`.pipe(Members))
  })

/** Makes a live member a team admin or a plain member; false when there is no such member. */
export const setSchemeAdmin = (teamId: string, userId: string, admin: boolean) =>
  Effect.gen(function*() {
    const db = yield* Db
    const updated = yield* db.transaction(db.sql`
      UPDATE team_members SET scheme_admin = ${admin}, scheme_user = true, roles = ''
      WHERE team_id = ${teamId} AND user_id = ${userId} AND delete_at = 0 RETURNING user_id`)
    return updated.length > 0
  })

/** The live teams the user is a live member of, with whether they administer each. */
export const teamsOfUser = (userId: string) =>
  Effect.gen(function*() {
    const db = yield* Db
    return yield* db.read(db.sql`
      SELECT t.*, tm.scheme_admin AS admin FROM team_members tm JOIN teams t ON t.id = tm.team_id
      WHERE tm.user_id = ${userId} AND tm.delete_at = 0 AND t.delete_at = 0
      ORDER BY t.display_name, t.id`.pipe(TeamsWithAdmin))
  })

/** The user's live memberships of live teams. */
export const membershipsOfUser = (userId: string) =>
  Effect.gen(function*() {
    const db = yield* Db
    const sql = db.sql
    return yield* db.read(sql`
      SELECT ${memberColumns(sql)} FROM team_members tm JOIN teams t ON t.id = tm.team_id ${unreadJoin(sql)}
      WHERE tm.user_id = ${userId} AND tm.delete_at = 0 AND t.delete_at = 0
      ORDER BY tm.team_id`.pipe(Members))
  })

const UsersUnreads = rows("TeamMemberRepo unreads of users", Schema.Struct({ user_id: Schema.String, ...TeamUnreadRowSchema.fields }))

/**
 * The unread totals of each of these users in each of their live teams, ordered by user then team: one statement
 * for the requests TeamUnreads.ts groups (the rows of `unreadsOfUser` for each user, with no team excluded).
 */
export const unreadsOfUsers = (userIds: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const db = yield* Db
    const sql = db.sql
    return yield* db.read(sql`
      SELECT tm.user_id, tm.team_id, u.msg_count, u.msg_count_root, u.mention_count, u.mention_count_root
      FROM team_members tm JOIN teams t ON t.id = tm.team_id ${unreadJoin(sql)}
      WHERE tm.user_id = ${anyText(sql, userIds)} AND tm.delete_at = 0 AND t.delete_at = 0
      ORDER BY tm.user_id, tm.team_id`.pipe(UsersUnreads))
  })

/** The user's unread totals in one team; None when they are not a live member. */
export const unreadOfUserInTeam = (userId: string, teamId: string) =>
  Effect.gen(function*() {
    const db = yield* Db
    const sql = db.sql
    const [row] = yield* db.read(sql`
      SELECT tm.team_id, u.msg_count, u.msg_count_root, u.mention_count, u.mention_count_root
      FROM team_members tm ${unreadJoin(sql)}
      WHERE tm.user_id = ${userId} AND tm.team_id = ${teamId} AND tm.delete_at = 0`.pipe(Unreads))
    return Option.fromNullable(row)
  })

/**
 * Runs `create` (an account's insert) and makes the new account a member of the team, when there is one, in one
 * transaction: no account is left behind without its team.
 */
export const createWithTeam = <A extends { readonly id: string }, E, R>(create: Effect.Effect<A, E, R>, teamId: Option.Option<string>, now: number) =>
  Effect.gen(function*() {
    const db = yield* Db
    const { maxUsersPerTeam } = yield* accountLimits
    return yield* db.transaction(Effect.gen(function*() {
      const row = yield* create
      const join = Option.isSome(teamId) ? Option.some(yield* Membership.addWithin(db.sql, teamId.value, [row.id], false, now, maxUsersPerTeam)) : Option.none()
      return { row, join }
    }))
  })
