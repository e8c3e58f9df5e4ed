import { Context, Effect, Layer, Option, Schema } from "effect"
import { Db, type DbError } from "../../layers/Db.ts"
import { Int8, rows } from "../../layers/Rows.ts"
import type { Caller } from "../auth/Authenticate.ts"
import { UserRow } from "./UserRow.ts"
import { SearchLimits } from "../../schemas/Limits.ts"
import { anyText } from "../../layers/SqlArrays.ts"

/**
 * Who may see which users, and every user lookup that depends on it. The rule (docs/compat.md): a user sees
 * themself, everyone who shares a team with them, and everyone who shares a channel with them (so DM and GM
 * partners stay visible after leaving a team); system admins see everyone. Invisible users are left out of lists
 * and are 403 when asked for directly.
 */
export interface ListFilter {
  readonly inTeam?: string
  readonly notInTeam?: string
  readonly inChannel?: string
  readonly notInChannel?: string
  readonly withoutTeam: boolean
  readonly active: boolean
  readonly inactive: boolean
  readonly role?: string
  /** The console's role filters; a user matching any of them is listed (see roleClause). */
  readonly roles?: RoleFilter
  /** create_at and last_activity_at with inTeam; status and admin (channel admins first) with inChannel. */
  readonly sort: "" | "create_at" | "last_activity_at" | "status" | "admin"
  readonly page: number
  readonly perPage: number
}

export interface SearchFilter {
  readonly term: string
  readonly inTeam?: string
  readonly notInTeam?: string
  readonly inChannel?: string
  readonly notInChannel?: string
  readonly withoutTeam: boolean
  readonly allowInactive: boolean
  readonly role?: string
  readonly roles?: RoleFilter
  readonly limit: number
}

/** System roles, and team or channel roles (scheme flags of the membership in the team or channel filtered on). */
export interface RoleFilter {
  readonly system: ReadonlyArray<string>
  readonly team: ReadonlyArray<string>
  readonly channel: ReadonlyArray<string>
}

export type DirectoryRow = UserRow & { readonly last_activity_at?: string | number }

export interface UserDirectoryService {
  /** The user if it exists, and whether the caller may see it. */
  readonly find: (caller: Caller, by: { readonly id?: string; readonly username?: string; readonly email?: string }) =>
    Effect.Effect<Option.Option<{ readonly row: UserRow; readonly visible: boolean }>, DbError>
  /** Visible users among the ids; with `since`, only those updated after it. */
  readonly byIds: (caller: Caller, ids: ReadonlyArray<string>, since?: number) => Effect.Effect<ReadonlyArray<UserRow>, DbError>
  readonly byUsernames: (caller: Caller, usernames: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<UserRow>, DbError>
  readonly list: (caller: Caller, filter: ListFilter) => Effect.Effect<ReadonlyArray<DirectoryRow>, DbError>
  readonly search: (caller: Caller, filter: SearchFilter) => Effect.Effect<ReadonlyArray<UserRow>, DbError>
  /** Ids of the users who share a channel with the caller. */
  readonly knownIds: (caller: Caller) => Effect.Effect<ReadonlyArray<string>, DbError>
  /** For each group channel the caller belongs to, its other members. */
  readonly groupChannelMembers: (caller: Caller, channelIds: ReadonlyArray<string>) =>
    Effect.Effect<ReadonlyArray<{ readonly channel_id: string; readonly user: UserRow }>, DbError>
}

/**
 * Mattermost's multi-role filter (its user store's applyMultiRoleFilters): the user matches if any listed system role,
 * team role or channel role matches. `system_user` means a plain user (no other system role); `*_admin` is the
 * membership's scheme admin flag and `*_user` a member without it, system admins excepted from both. Team roles need
 * the team filtered on, channel roles the channel; other names match nobody.
 */
export const roleClause = (sql: Db["Type"]["sql"], roles: RoleFilter | undefined, scope: { inTeam?: string; inChannel?: string }) => {
  if (roles === undefined) return sql``
  const parts = roles.system.map((role) =>
    role === "system_user" ? sql`u.roles = 'system_user'` : sql`${role} = ANY(string_to_array(u.roles, ' '))`
  )
  // System admins are their own row of the console's filter, so neither team nor channel roles count them.
  const notSystemAdmin = sql`NOT ('system_admin' = ANY(string_to_array(u.roles, ' ')))`
  const member = (kind: "team" | "channel", role: string) =>
    role === `${kind}_admin`
      ? sql`m.scheme_admin AND ${notSystemAdmin}`
      : role === `${kind}_user`
      ? sql`m.scheme_user AND NOT m.scheme_admin AND ${notSystemAdmin}`
      : sql`FALSE`
  if (scope.inTeam !== undefined) {
    for (const role of roles.team) {
      parts.push(sql`EXISTS (SELECT 1 FROM team_members m WHERE m.team_id = ${scope.inTeam} AND m.user_id = u.id AND m.delete_at = 0 AND ${member("team", role)})`)
    }
  }
  if (scope.inChannel !== undefined) {
    for (const role of roles.channel) {
      parts.push(sql`EXISTS (SELECT 1 FROM channel_members m WHERE m.channel_id = ${scope.inChannel} AND m.user_id = u.id AND ${member("channel", role)})`)
    }
  }
  return parts.length === 0 ? sql`` : sql`AND (${sql.or(parts)})`
}

export class UserDirectory extends Context.Tag("service/UserDirectory")<UserDirectory, UserDirectoryService>() {}

/** Escapes LIKE wildcards so that a search term matches literally. */
const likePrefix = (word: string) => `${word.replace(/[\\%_]/g, (c) => `\\${c}`)}%`

const Users = rows("UserDirectory users", UserRow)
const VisibleUsers = rows("UserDirectory find", Schema.Struct({ ...UserRow.fields, visible: Schema.Boolean }))
const DirectoryRows = rows("UserDirectory list", Schema.Struct({ ...UserRow.fields, last_activity_at: Int8 }))
const UserIds = rows("UserDirectory knownIds", Schema.Struct({ user_id: Schema.String }))
const GroupMembers = rows("UserDirectory groupChannelMembers", Schema.Struct({ ...UserRow.fields, gm_channel_id: Schema.String }))

export const make = Effect.gen(function*() {
  const db = yield* Db
  const sql = db.sql

  // Whether user `u` is visible to the caller, asked per candidate row: the caller themselves, a member of one of the
  // caller's teams, or of one of the caller's channels. Each test is an index lookup from u's memberships to the
  // caller's (primary keys); building the whole set of visible ids instead joins every membership of every channel
  // the caller is in, which reads all of channel_members once channels are large.
  const isVisible = (caller: Caller) => sql`(
    u.id = ${caller.userId}
    OR EXISTS (SELECT 1 FROM team_members b JOIN team_members a ON a.team_id = b.team_id
               WHERE b.user_id = u.id AND b.delete_at = 0 AND a.user_id = ${caller.userId} AND a.delete_at = 0)
    OR EXISTS (SELECT 1 FROM channel_members b JOIN channel_members a ON a.channel_id = b.channel_id
               WHERE b.user_id = u.id AND a.user_id = ${caller.userId}))`

  const visibleClause = (caller: Caller) => caller.isSystemAdmin ? sql`` : sql`AND ${isVisible(caller)}`

  const membershipClauses = (f: Pick<ListFilter, "inTeam" | "notInTeam" | "inChannel" | "notInChannel" | "withoutTeam">) => {
    if (f.withoutTeam) return sql`AND NOT EXISTS (SELECT 1 FROM team_members tm WHERE tm.user_id = u.id AND tm.delete_at = 0)`
    return sql`
      ${f.inTeam !== undefined ? sql`AND EXISTS (SELECT 1 FROM team_members tm WHERE tm.team_id = ${f.inTeam} AND tm.user_id = u.id AND tm.delete_at = 0)` : sql``}
      ${f.notInTeam !== undefined ? sql`AND NOT EXISTS (SELECT 1 FROM team_members tm WHERE tm.team_id = ${f.notInTeam} AND tm.user_id = u.id AND tm.delete_at = 0)` : sql``}
      ${f.inChannel !== undefined ? sql`AND EXISTS (SELECT 1 FROM channel_members cm WHERE cm.channel_id = ${f.inChannel} AND cm.user_id = u.id)` : sql``}
      ${f.notInChannel !== undefined ? sql`AND NOT EXISTS (SELECT 1 FROM channel_members cm WHERE cm.channel_id = ${f.notInChannel} AND cm.user_id = u.id)` : sql``}`
  }

  /**
   * Every word of the term must prefix the username, a name, the nickname or (for admins) the email; the first
   * SearchLimits.userTermWords distinct words (schemas/Limits.ts says why that answers the same people or more).
   */
  const termClause = (caller: Caller, term: string) => {
    const words = [...new Set(term.trim().toLowerCase().replace(/^@/, "").split(/\s+/).filter((w) => w !== ""))]
      .slice(0, SearchLimits.userTermWords)
    if (words.length === 0) return sql``
    return sql`AND ${sql.and(words.map((word) => {
      const p = likePrefix(word)
      return caller.isSystemAdmin
        ? sql`(lower(u.username) LIKE ${p} OR lower(u.first_name) LIKE ${p} OR lower(u.last_name) LIKE ${p} OR lower(u.nickname) LIKE ${p} OR lower(u.email) LIKE ${p})`
        : sql`(lower(u.username) LIKE ${p} OR lower(u.first_name) LIKE ${p} OR lower(u.last_name) LIKE ${p} OR lower(u.nickname) LIKE ${p})`
    }))}`
  }

  /** The single `role` filter: users holding that system role. */
  const roleOf = (role: string | undefined) => role !== undefined ? sql`AND ${role} = ANY(string_to_array(u.roles, ' '))` : sql``

  const service: UserDirectoryService = {
    find: (caller, by) =>
      Effect.gen(function*() {
        const where = by.id !== undefined
          ? sql`u.id = ${by.id}`
          : by.username !== undefined
          ? sql`lower(u.username) = lower(${by.username})`
          : sql`lower(u.email) = lower(${by.email ?? ""})`
        const rows = yield* db.read(sql`
          SELECT u.*, ${caller.isSystemAdmin ? sql`true` : isVisible(caller)} AS visible
          FROM users u WHERE ${where}`.pipe(VisibleUsers))
        return Option.map(Option.fromNullable(rows[0]), ({ visible, ...row }) => ({ row: row as UserRow, visible }))
      }),
    byIds: (caller, ids, since) =>
      ids.length === 0 ? Effect.succeed([]) : db.read(sql`
        SELECT u.* FROM users u WHERE u.id = ${anyText(sql, ids)}
        ${since !== undefined ? sql`AND u.update_at > ${since}` : sql``}
        ${visibleClause(caller)}
        ORDER BY u.username`.pipe(Users)),
    byUsernames: (caller, usernames) =>
      usernames.length === 0 ? Effect.succeed([]) : db.read(sql`
        SELECT u.* FROM users u WHERE lower(u.username) = ${anyText(sql, usernames.map((n) => n.toLowerCase()))}
        ${visibleClause(caller)}
        ORDER BY u.username`.pipe(Users)),
    list: (caller, f) => {
      const order = f.sort === "create_at"
        ? sql`u.create_at DESC, u.username`
        : f.sort === "last_activity_at"
        ? sql`COALESCE(s.last_activity_at, 0) DESC, u.username`
        : f.sort === "status"
        ? sql`CASE COALESCE(s.status, 'offline') WHEN 'online' THEN 0 WHEN 'away' THEN 1 WHEN 'dnd' THEN 2 ELSE 3 END, u.username`
        : f.sort === "admin" && f.inChannel !== undefined
        ? sql`COALESCE(adm.scheme_admin, false) DESC, u.username`
        : sql`u.username`
      return db.read(sql`
        SELECT u.*, COALESCE(s.last_activity_at, 0) AS last_activity_at
        FROM users u LEFT JOIN statuses s ON s.user_id = u.id
        ${f.sort === "admin" && f.inChannel !== undefined
          ? sql`LEFT JOIN channel_members adm ON adm.channel_id = ${f.inChannel} AND adm.user_id = u.id`
          : sql``}
        WHERE true
        ${membershipClauses(f)}
        ${f.active ? sql`AND u.delete_at = 0` : f.inactive ? sql`AND u.delete_at > 0` : sql``}
        ${roleOf(f.role)}
        ${roleClause(sql, f.roles, f)}
        ${visibleClause(caller)}
        ORDER BY ${order}
        LIMIT ${f.perPage} OFFSET ${f.page * f.perPage}`.pipe(DirectoryRows))
    },
    search: (caller, f) =>
      db.read(sql`
        SELECT u.* FROM users u
        WHERE true
        ${termClause(caller, f.term)}
        ${membershipClauses(f)}
        ${f.allowInactive ? sql`` : sql`AND u.delete_at = 0`}
        ${roleOf(f.role)}
        ${roleClause(sql, f.roles, f)}
        ${visibleClause(caller)}
        ORDER BY u.username
        LIMIT ${f.limit}`.pipe(Users)),
    knownIds: (caller) =>
      Effect.map(
        db.read(sql`
          SELECT DISTINCT b.user_id FROM channel_members a JOIN channel_members b ON b.channel_id = a.channel_id
          WHERE a.user_id = ${caller.userId} AND b.user_id <> ${caller.userId}
          ORDER BY b.user_id`.pipe(UserIds)),
        (rows) => rows.map((r) => r.user_id)
      ),
    groupChannelMembers: (caller, channelIds) =>
      channelIds.length === 0 ? Effect.succeed([]) : Effect.map(
        db.read(sql`
          SELECT u.*, other.channel_id AS gm_channel_id
          FROM channel_members mine
          JOIN channels c ON c.id = mine.channel_id AND c.type = 'G'
          JOIN channel_members other ON other.channel_id = mine.channel_id AND other.user_id <> ${caller.userId}
          JOIN users u ON u.id = other.user_id
          WHERE mine.user_id = ${caller.userId} AND mine.channel_id = ${anyText(sql, channelIds)}
          ORDER BY other.channel_id, u.username`.pipe(GroupMembers)),
        (rows) => rows.map(({ gm_channel_id, ...user }) => ({ channel_id: gm_channel_id, user: user as UserRow }))
      )
  }
  return service
})

export const layer = Layer.effect(UserDirectory, make)
