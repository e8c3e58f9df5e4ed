import type { Statement } from "@effect/sql"
import { Context, Effect, Layer } from "effect"
import { Db, type DbError } from "../../layers/Db.ts"
import type { Caller } from "../auth/Authenticate.ts"
import { Forbidden, NotFound } from "../../schemas/Errors.ts"

/**
 * Who may touch which team and channel: the checks every handler makes before reading or writing a resource.
 * Unknown resources are 404; known ones the caller may not touch are 403 (never 401). System admins pass.
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
  /** Channel admin of this channel, admin of its team, or system admin: may manage its properties and members. */
  readonly isAdmin: boolean
}

export interface TeamAccess {
  readonly isMember: boolean
  /** Team admin or system admin. */
  readonly isAdmin: boolean
}

export type AccessError = NotFound | Forbidden | DbError

export interface AccessService {
  readonly team: (caller: Caller, teamId: string) => Effect.Effect<void, AccessError>
  /** As `team`, and tells whether the caller administers the team. */
  readonly teamMember: (caller: Caller, teamId: string) => Effect.Effect<TeamAccess, AccessError>
  readonly channel: (caller: Caller, channelId: string, mode: "read" | "write") => Effect.Effect<ChannelAccess, AccessError>
  /**
   * As `channel`, with one more value computed by the same statement (`value`, an expression): a read the request
   * makes next anyway, saved a round trip. The value is computed whatever the answer and returned only on access.
   */
  readonly channelWith: <A>(caller: Caller, channelId: string, mode: "read" | "write", value: Statement.Fragment) =>
    Effect.Effect<ChannelAccess & { readonly value: A }, AccessError>
  /** Resolves a post to its channel and checks the channel for the caller. */
  readonly post: (caller: Caller, postId: string, mode: "read" | "write") => Effect.Effect<ChannelAccess & { readonly postUserId: string }, AccessError>
  /** Channel ids the caller may read (member channels), for search and bulk queries. */
  readonly readableChannelIds: (caller: Caller) => Effect.Effect<ReadonlyArray<string>, DbError>
}

export class Access extends Context.Tag("service/Access")<Access, AccessService>() {}

interface ChannelAccessRow {
  readonly id: string
  readonly team_id: string
  readonly type: string
  readonly name: string
  readonly display_name: string
  readonly delete_at: string
  readonly is_member: boolean
  readonly is_team_member: boolean
  readonly is_channel_admin: boolean
  readonly is_team_admin: boolean
}

export const make = Effect.gen(function*() {
  const db = yield* Db
  const sql = db.sql

  const membership = (caller: Caller) => sql`
    EXISTS (SELECT 1 FROM channel_members cm WHERE cm.channel_id = c.id AND cm.user_id = ${caller.userId}) AS is_member,
    EXISTS (SELECT 1 FROM team_members tm WHERE tm.team_id = c.team_id AND tm.user_id = ${caller.userId} AND tm.delete_at = 0) AS is_team_member,
    EXISTS (SELECT 1 FROM channel_members cm WHERE cm.channel_id = c.id AND cm.user_id = ${caller.userId} AND cm.scheme_admin) AS is_channel_admin,
    EXISTS (SELECT 1 FROM team_members tm WHERE tm.team_id = c.team_id AND tm.user_id = ${caller.userId} AND tm.delete_at = 0 AND tm.scheme_admin) AS is_team_admin`

  const channelRow = <Extra = {}>(caller: Caller, where: ReturnType<typeof sql.literal>, extra: Statement.Fragment = sql``) =>
    db.read(sql<ChannelAccessRow & Extra>`
      SELECT c.id, c.team_id, c.type, c.name, c.display_name, c.delete_at,
             ${membership(caller)}
             ${extra}
             ${where}`)

  const decide = (caller: Caller, row: ChannelAccessRow, mode: "read" | "write"): Effect.Effect<ChannelAccess, Forbidden> => {
    const access: ChannelAccess = {
      channel: { id: row.id, team_id: row.team_id, type: row.type, name: row.name, display_name: row.display_name, delete_at: Number(row.delete_at) },
      isMember: row.is_member,
      isAdmin: caller.isSystemAdmin || row.is_team_admin || (row.is_member && row.is_channel_admin)
    }
    if (row.is_member || caller.isSystemAdmin) return Effect.succeed(access)
    if (mode === "read" && row.type === "O" && row.is_team_member) return Effect.succeed(access)
    return Effect.fail(new Forbidden({ id: "api.context.permissions.app_error", message: "You do not have the appropriate permissions for this channel." }))
  }

  const teamMember = (caller: Caller, teamId: string) =>
    Effect.gen(function*() {
      const rows = yield* db.read(sql<{ member: boolean; admin: boolean }>`
        SELECT tm.user_id IS NOT NULL AS member, COALESCE(tm.scheme_admin, false) AS admin
        FROM teams t LEFT JOIN team_members tm ON tm.team_id = t.id AND tm.user_id = ${caller.userId} AND tm.delete_at = 0
        WHERE t.id = ${teamId}`)
      if (rows.length === 0) return yield* new NotFound({ id: "app.team.get.find.app_error", message: "Team not found." })
      if (!rows[0].member && !caller.isSystemAdmin) {
        return yield* new Forbidden({ id: "api.context.permissions.app_error", message: "You are not a member of this team." })
      }
      return { isMember: rows[0].member, isAdmin: caller.isSystemAdmin || rows[0].admin } satisfies TeamAccess
    })

  const service: AccessService = {
    team: (caller, teamId) => Effect.asVoid(teamMember(caller, teamId)),
    teamMember,
    channel: (caller, channelId, mode) =>
      Effect.gen(function*() {
        const rows = yield* channelRow(caller, sql`FROM channels c WHERE c.id = ${channelId}`)
        if (rows.length === 0) return yield* new NotFound({ id: "app.channel.get.existing.app_error", message: "Channel not found." })
        return yield* decide(caller, rows[0], mode)
      }),
    channelWith: <A>(caller: Caller, channelId: string, mode: "read" | "write", value: Statement.Fragment) =>
      Effect.gen(function*() {
        const rows = yield* channelRow<{ readonly value: A }>(caller, sql`FROM channels c WHERE c.id = ${channelId}`, sql`, ${value} AS value`)
        if (rows.length === 0) return yield* new NotFound({ id: "app.channel.get.existing.app_error", message: "Channel not found." })
        const access = yield* decide(caller, rows[0], mode)
        return { ...access, value: rows[0].value }
      }),
    post: (caller, postId, mode) =>
      Effect.gen(function*() {
        const rows = yield* db.read(sql<ChannelAccessRow & { post_user_id: string }>`
          SELECT c.id, c.team_id, c.type, c.name, c.display_name, c.delete_at, p.user_id AS post_user_id,
                 ${membership(caller)}
          FROM posts p JOIN channels c ON c.id = p.channel_id
          WHERE p.id = ${postId} AND p.delete_at = 0`)
        if (rows.length === 0) return yield* new NotFound({ id: "app.post.get.app_error", message: "Post not found." })
        const access = yield* decide(caller, rows[0], mode)
        return { ...access, postUserId: rows[0].post_user_id }
      }),
    readableChannelIds: (caller) =>
      Effect.map(
        db.read(sql<{ channel_id: string }>`SELECT channel_id FROM channel_members WHERE user_id = ${caller.userId}`),
        (rows) => rows.map((r) => r.channel_id)
      )
  }
  return service
})

export const layer = Layer.effect(Access, make)

