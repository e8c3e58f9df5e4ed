import type { Statement } from "@effect/sql"
import { Context, Effect, Layer, Schema } from "effect"
import { Db, type DbError } from "../../layers/Db.ts"
import { Int8Text, rows } from "../../layers/Rows.ts"
import type { Caller } from "../auth/Authenticate.ts"
import { RoleStore } from "../system/RoleStore.ts"
import { Forbidden, NotFound } from "../../schemas/Errors.ts"
import { anyText } from "../../layers/SqlArrays.ts"

/**
 * Who may touch which team and channel: the checks every handler makes before reading or writing a resource.
 * Unknown resources are 404; known ones the caller may not touch are 403 (never 401). System admins pass.
 *
 * Permissions in a team or channel (`can`) are answered as Mattermost answers them: from the union of the caller's
 * system roles, their team member roles in the channel's team and their channel member roles (a member's scheme
 * flags name team_user/team_admin/team_guest and channel_user/channel_admin/channel_guest, plus any explicit
 * roles), looked up in this node's copy of the roles (src/system/RoleStore.ts): the statement that finds the
 * memberships already ran, so a check costs a few Set lookups.
 *
 * Channel rules, as Mattermost's default permissions:
 * - read: a member of the channel; for a public channel ('O') also any member of its team (browse, read before join).
 * - write (post, react, upload): a member of the channel.
 */
export interface ChannelRef {
  readonly id: string
  readonly team_id: string
  readonly type: string
  readonly name: string
  readonly display_name: string
  readonly delete_at: number
}

export interface ChannelAccess {
  readonly channel: ChannelRef
  /** Whether the caller is a member of the channel (public channels may be read without it). */
  readonly isMember: boolean
  /** Holds manage_channel_roles here (channel admin, team admin, system admin by default). */
  readonly isAdmin: boolean
  /** Whether the caller holds the permission in this channel (system, team and channel roles together). */
  readonly can: (permission: string) => boolean
}

export interface TeamAccess {
  readonly isMember: boolean
  /** Holds manage_team in this team (team admin, system admin by default). */
  readonly isAdmin: boolean
  /** Whether the caller holds the permission in this team (system and team roles together). */
  readonly can: (permission: string) => boolean
}

export type AccessError = NotFound | Forbidden | DbError

/**
 * `channel`'s check as the head of a larger statement (issue 10: a channel page is one statement). `cte` is a WITH
 * item named `access`: no row for an unknown channel, else one row of the channel's columns, the caller's memberships
 * and `allowed` (the decision `channel` makes, written in SQL), so the rest of the statement reads nothing the caller
 * may not read. `decide` answers what `channel` answers from that row read back as JSON (`row_to_json(access)`;
 * undefined when there was no row): 404, 403 or the access.
 */
export interface ChannelGate {
  readonly cte: Statement.Fragment
  readonly decide: (row: unknown) => Effect.Effect<ChannelAccess, AccessError>
}

export interface AccessService {
  readonly team: (caller: Caller, teamId: string) => Effect.Effect<void, AccessError>
  /** As `team`, and tells whether the caller administers the team. */
  readonly teamMember: (caller: Caller, teamId: string) => Effect.Effect<TeamAccess, AccessError>
  readonly channel: (caller: Caller, channelId: string, mode: "read" | "write") => Effect.Effect<ChannelAccess, AccessError>
  readonly channelGate: (caller: Caller, channelId: string, mode: "read" | "write") => ChannelGate
  /**
   * The read gate's `access` CTE with a row for `channelId` and one for each of the caller's most recently viewed
   * other channels (READER_CHANNELS in all), each with its `id`: a cached page's access check keeps every row that
   * lets the caller read (PageCache.keepReader), so their first reads of those channels cost no statement.
   */
  readonly readerGates: (caller: Caller, channelId: string) => Statement.Fragment
  /**
   * Whether a gate's row (as `ChannelGate.decide` takes it) lets the caller read, decided now, outside any effect:
   * true exactly where `decide(row)` for "read" succeeds, false otherwise (a row that does not decode included).
   */
  readonly readsNow: (caller: Caller, row: unknown) => boolean
  /** Resolves a post to its channel and checks the channel for the caller. */
  readonly post: (caller: Caller, postId: string, mode: "read" | "write") => Effect.Effect<ChannelAccess & { readonly postUserId: string }, AccessError>
  /**
   * Per team, whether the caller holds a permission there (system roles, and team roles where they are a live member):
   * one statement for a list of teams (lists sanitized team by team).
   */
  readonly teamPermissions: (caller: Caller, teamIds: ReadonlyArray<string>) => Effect.Effect<(teamId: string) => (permission: string) => boolean, DbError>
  /** Channel ids the caller may read (member channels), for search and bulk queries. */
  readonly readableChannelIds: (caller: Caller) => Effect.Effect<ReadonlyArray<string>, DbError>
}

export class Access extends Context.Tag("service/Access")<Access, AccessService>() {}

const ChannelAccessRow = Schema.Struct({
  id: Schema.String,
  team_id: Schema.String,
  type: Schema.String,
  name: Schema.String,
  display_name: Schema.String,
  delete_at: Int8Text,
  is_member: Schema.Boolean,
  is_team_member: Schema.Boolean,
  channel_roles: Schema.NullOr(Schema.String),
  team_roles: Schema.NullOr(Schema.String)
})
type ChannelAccessRow = typeof ChannelAccessRow.Type
const ChannelAccessRows = rows("Access channel", ChannelAccessRow)
const PostChannels = rows("Access post channel", Schema.Struct({ ...ChannelAccessRow.fields, post_user_id: Schema.String }))
const TeamMembers = rows("Access team member", Schema.Struct({ team_roles: Schema.NullOr(Schema.String) }))
const TeamRoles = rows("Access team roles", Schema.Struct({ team_id: Schema.String, team_roles: Schema.String }))
const ChannelIds = rows("Access channel ids", Schema.Struct({ channel_id: Schema.String }))

/** A member row's roles, as Mattermost renders them: the scheme flags' roles, then the explicit ones. */
const memberRoles = (alias: "cm" | "tm", scope: "channel" | "team") => `concat_ws(' ',
      CASE WHEN ${alias}.scheme_guest THEN '${scope}_guest' END, CASE WHEN ${alias}.scheme_user THEN '${scope}_user' END,
      CASE WHEN ${alias}.scheme_admin THEN '${scope}_admin' END, NULLIF(${alias}.roles, ''))`

/**
 * Channels a cached page's access check reads rows for: the one asked for and the caller's nine most recently viewed
 * others, the ones a channel switch is likely to read next (issue 31: a quarter of cached pages at 10,000 users still
 * sent the check, each reader's first read of each channel). Each row costs four index lookups, and every row is
 * forgotten at any membership event anywhere (PageReaders), so the check is kept small rather than covering every
 * channel.
 */
const READER_CHANNELS = 10

const splitRoles = (roles: string | null): ReadonlyArray<string> => roles === null ? [] : roles.split(" ").filter((r) => r !== "")

export const make = Effect.gen(function*() {
  const db = yield* Db
  const roleStore = yield* RoleStore
  const sql = db.sql

  const membership = (caller: Caller) => sql`
    EXISTS (SELECT 1 FROM channel_members cm WHERE cm.channel_id = c.id AND cm.user_id = ${caller.userId}) AS is_member,
    EXISTS (SELECT 1 FROM team_members tm WHERE tm.team_id = c.team_id AND tm.user_id = ${caller.userId} AND tm.delete_at = 0) AS is_team_member,
    (SELECT ${sql.literal(memberRoles("cm", "channel"))} FROM channel_members cm WHERE cm.channel_id = c.id AND cm.user_id = ${caller.userId}) AS channel_roles,
    (SELECT ${sql.literal(memberRoles("tm", "team"))} FROM team_members tm WHERE tm.team_id = c.team_id AND tm.user_id = ${caller.userId} AND tm.delete_at = 0) AS team_roles`

  /** `can` over the caller's system roles and the given member roles, in the current snapshot of the roles. */
  const resolver = (caller: Caller, held: ReadonlyArray<string>) => {
    if (held.length === 0) return caller.can
    const snapshot = roleStore.current()
    const all = [...caller.roles, ...held]
    return (permission: string) => snapshot.grants(all, permission)
  }

  const channelRow = (caller: Caller, where: ReturnType<typeof sql.literal>) =>
    db.read(sql`
      SELECT c.id, c.team_id, c.type, c.name, c.display_name, c.delete_at,
             ${membership(caller)}
             ${where}`.pipe(ChannelAccessRows))

  /** A public channel is read by the members of its team. */
  const readableByTeam = (row: ChannelAccessRow) => row.type === "O" && row.is_team_member

  const decide = (caller: Caller, row: ChannelAccessRow, mode: "read" | "write"): Effect.Effect<ChannelAccess, Forbidden> => {
    // Channel roles count only for a member of the channel, team roles only for a member of its team.
    const can = resolver(caller, [...splitRoles(row.team_roles), ...(row.is_member ? splitRoles(row.channel_roles) : [])])
    const access: ChannelAccess = {
      channel: { id: row.id, team_id: row.team_id, type: row.type, name: row.name, display_name: row.display_name, delete_at: Number(row.delete_at) },
      isMember: row.is_member,
      isAdmin: can("manage_channel_roles"),
      can
    }
    if (row.is_member || caller.isSystemAdmin || (mode === "read" && readableByTeam(row))) return Effect.succeed(access)
    return Effect.fail(new Forbidden({ id: "api.context.permissions.app_error", message: "You do not have the appropriate permissions for this channel." }))
  }

  const channelNotFound = () => new NotFound({ id: "app.channel.get.existing.app_error", message: "Channel not found." })

  // The same decision as `decide`, in SQL, over the columns of `membership`.
  const allowedSql = (caller: Caller, mode: "read" | "write") =>
    caller.isSystemAdmin
      ? sql`true`
      : mode === "read"
      ? sql`a.is_member OR (a.type = 'O' AND a.is_team_member)`
      : sql`a.is_member`

  /** The `access` CTE: a gate row for each channel `where` picks. */
  const accessCte = (caller: Caller, mode: "read" | "write", where: Statement.Fragment) =>
    sql`access AS (
      SELECT a.*, (${allowedSql(caller, mode)}) AS allowed
      FROM (SELECT c.id, c.team_id, c.type, c.name, c.display_name, c.delete_at,
                   ${membership(caller)}
            FROM channels c WHERE ${where}) a)`

  const channelGate = (caller: Caller, channelId: string, mode: "read" | "write"): ChannelGate => ({
    cte: accessCte(caller, mode, sql`c.id = ${channelId}`),
    decide: (row) => {
      if (row === undefined || row === null) return Effect.fail(channelNotFound())
      let decoded: ChannelAccessRow
      try {
        decoded = ChannelAccessRows.decode([row])[0]
      } catch (defect) {
        return Effect.die(defect)
      }
      return decide(caller, decoded, mode)
    }
  })

  // The limit is in the text, not a parameter: a generic plan costs a parameter's limit as a tenth of the rows, which
  // could make it look dearer than the custom plans and have the statement planned again on every run.
  const readerGates = (caller: Caller, channelId: string) =>
    accessCte(
      caller,
      "read",
      sql`c.id = ANY(array_append(ARRAY(
        SELECT cm0.channel_id FROM channel_members cm0
        WHERE cm0.user_id = ${caller.userId} AND cm0.channel_id <> ${channelId}
        ORDER BY cm0.last_viewed_at DESC LIMIT ${sql.literal(String(READER_CHANNELS - 1))}), ${channelId}::text))`
    )

  const teamMember = (caller: Caller, teamId: string) =>
    Effect.gen(function*() {
      const rows = yield* db.read(sql`
        SELECT CASE WHEN tm.user_id IS NULL THEN NULL ELSE ${sql.literal(memberRoles("tm", "team"))} END AS team_roles
        FROM teams t LEFT JOIN team_members tm ON tm.team_id = t.id AND tm.user_id = ${caller.userId} AND tm.delete_at = 0
        WHERE t.id = ${teamId}`.pipe(TeamMembers))
      if (rows.length === 0) return yield* new NotFound({ id: "app.team.get.find.app_error", message: "Team not found." })
      const isMember = rows[0].team_roles !== null
      if (!isMember && !caller.isSystemAdmin) {
        return yield* new Forbidden({ id: "api.context.permissions.app_error", message: "You are not a member of this team." })
      }
      const can = resolver(caller, splitRoles(rows[0].team_roles))
      return { isMember, isAdmin: can("manage_team"), can } satisfies TeamAccess
    })

  const service: AccessService = {
    team: (caller, teamId) => Effect.asVoid(teamMember(caller, teamId)),
    teamMember,
    channel: (caller, channelId, mode) =>
      Effect.gen(function*() {
        const rows = yield* channelRow(caller, sql`FROM channels c WHERE c.id = ${channelId}`)
        if (rows.length === 0) return yield* channelNotFound()
        return yield* decide(caller, rows[0], mode)
      }),
    channelGate,
    readerGates,
    readsNow: (caller, row) => {
      if (row === undefined || row === null) return false
      let decoded: ChannelAccessRow
      try {
        decoded = ChannelAccessRows.decode([row])[0]
      } catch {
        return false
      }
      return decoded.is_member || caller.isSystemAdmin || readableByTeam(decoded)
    },
    post: (caller, postId, mode) =>
      Effect.gen(function*() {
        const rows = yield* db.read(sql`
          SELECT c.id, c.team_id, c.type, c.name, c.display_name, c.delete_at, p.user_id AS post_user_id,
                 ${membership(caller)}
          FROM posts p JOIN channels c ON c.id = p.channel_id
          WHERE p.id = ${postId} AND p.delete_at = 0`.pipe(PostChannels))
        if (rows.length === 0) return yield* new NotFound({ id: "app.post.get.app_error", message: "Post not found." })
        const access = yield* decide(caller, rows[0], mode)
        return { ...access, postUserId: rows[0].post_user_id }
      }),
    teamPermissions: (caller, teamIds) =>
      Effect.gen(function*() {
        if (teamIds.length === 0) return () => caller.can
        const found = yield* db.read(sql`
          SELECT tm.team_id, ${sql.literal(memberRoles("tm", "team"))} AS team_roles FROM team_members tm
          WHERE tm.user_id = ${caller.userId} AND tm.delete_at = 0 AND tm.team_id = ${anyText(sql, [...new Set(teamIds)])}`.pipe(TeamRoles))
        const byTeam = new Map(found.map((r) => [r.team_id, resolver(caller, splitRoles(r.team_roles))]))
        return (teamId: string) => byTeam.get(teamId) ?? caller.can
      }),
    readableChannelIds: (caller) =>
      Effect.map(
        db.read(sql`SELECT channel_id FROM channel_members WHERE user_id = ${caller.userId}`.pipe(ChannelIds)),
        (rows) => rows.map((r) => r.channel_id)
      )
  }
  return service
})

export const layer = Layer.effect(Access, make)

