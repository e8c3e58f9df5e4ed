import type { SqlClient } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import { newId } from "../../layers/Crypto.ts"
import { Db } from "../../layers/Db.ts"
import { Int8, Int8Text, rows } from "../../layers/Rows.ts"
import { likeContaining } from "../search/Like.ts"
import * as Membership from "./Membership.ts"
import type { TeamRow } from "./TeamWire.ts"
import { TeamRow as TeamRowSchema } from "./TeamRows.ts"

const Teams = rows("TeamRepo teams", TeamRowSchema)
const TeamsWithMembership = rows(
  "TeamRepo withMembership",
  Schema.Struct({ ...TeamRowSchema.fields, member: Schema.Boolean, admin: Schema.Boolean })
)
const TeamsWithTotal = rows("TeamRepo page", Schema.Struct({ ...TeamRowSchema.fields, total: Int8Text }))
const Counts = rows("TeamRepo count", Schema.Struct({ n: Int8 }))
const Totals = rows("TeamRepo memberCounts", Schema.Struct({ total: Int8, active: Int8 }))

/**
 * Teams' SQL. The functions taking `sql` are writes shared by the API (POST /teams) and the admin command line, run
 * inside the caller's transaction; the others run their own statements through Db.
 */

export interface NewTeam {
  readonly id: string
  readonly now: number
  readonly name: string
  readonly displayName: string
  readonly type: "O" | "I"
  readonly description: string
  readonly companyName: string
  readonly allowedDomains: string
  readonly allowOpenInvite: boolean
  /** The user who creates it: its contact email and first team admin. None from the command line. */
  readonly creatorId: string | null
}

/**
 * Inserts the team with its default channels and makes the creator its admin; None when the name is taken (the
 * unique index decides, so two creations of one name cannot both succeed).
 */
export const insertWithDefaultChannels = (sql: SqlClient.SqlClient, t: NewTeam) =>
  Effect.gen(function*() {
    const inserted = yield* sql`
      INSERT INTO teams (id, create_at, update_at, display_name, name, description, email, type, company_name,
                         allowed_domains, invite_id, allow_open_invite)
      VALUES (${t.id}, ${t.now}, ${t.now}, ${t.displayName}, ${t.name}, ${t.description},
              COALESCE((SELECT email FROM users WHERE id = ${t.creatorId ?? ""}), ''), ${t.type},
              ${t.companyName}, ${t.allowedDomains}, ${newId()}, ${t.allowOpenInvite})
      ON CONFLICT (name) DO NOTHING
      RETURNING *`.pipe(Teams)
    if (inserted.length === 0) return undefined
    const [first, second] = Membership.DEFAULT_CHANNELS
    yield* sql`
      INSERT INTO channels (id, create_at, update_at, team_id, type, display_name, name)
      VALUES (${newId()}, ${t.now}, ${t.now}, ${t.id}, 'O', ${first.display_name}, ${first.name}),
             (${newId()}, ${t.now}, ${t.now}, ${t.id}, 'O', ${second.display_name}, ${second.name})`
    const join = yield* Membership.add(sql, t.id, t.creatorId === null ? [] : [t.creatorId], true, t.now)
    return { team: inserted[0], join }
  })

/** `insertWithDefaultChannels` in a transaction of its own. */
export const create = (t: NewTeam) => Effect.flatMap(Db, (db) => db.transaction(insertWithDefaultChannels(db.sql, t)))

/** A live team by id or name. */
export const findByIdOrName = (sql: SqlClient.SqlClient, idOrName: string) =>
  Effect.map(
    sql`SELECT * FROM teams WHERE (id = ${idOrName} OR name = ${idOrName}) AND delete_at = 0 LIMIT 1`.pipe(Teams),
    (rows) => rows[0]
  )

/** Who is asking, as far as which teams they may see is concerned. */
export interface Viewer {
  readonly userId: string
  readonly isSystemAdmin: boolean
}

export type TeamWithMembership = TeamRow & { readonly member: boolean; readonly admin: boolean }

/** A team by id or name, with whether the user is a live member of it and administers it. */
export const withMembership = (userId: string, where: "id" | "name", value: string) =>
  Effect.gen(function*() {
    const db = yield* Db
    const sql = db.sql
    const rows = yield* db.read(sql`
      SELECT t.*, tm.user_id IS NOT NULL AS member, COALESCE(tm.scheme_admin, false) AS admin
      FROM teams t LEFT JOIN team_members tm ON tm.team_id = t.id AND tm.user_id = ${userId} AND tm.delete_at = 0
      WHERE ${where === "id" ? sql`t.id = ${value}` : sql`t.name = ${value}`}`.pipe(TeamsWithMembership))
    return Option.fromNullable(rows[0])
  })

export interface TeamPatch {
  readonly display_name?: string | undefined
  readonly description?: string | undefined
  readonly company_name?: string | undefined
  readonly allowed_domains?: string | undefined
  readonly allow_open_invite?: boolean | undefined
  readonly group_constrained?: boolean | undefined
}

/** Sets the fields given; an open-invite switch also sets the type (O open, I invite only). */
export const patch = (teamId: string, p: TeamPatch, now: number) =>
  Effect.gen(function*() {
    const db = yield* Db
    const sql = db.sql
    const rows = yield* db.transaction(sql`
      UPDATE teams SET
        display_name = COALESCE(${p.display_name?.trim() ?? null}, display_name),
        description = COALESCE(${p.description ?? null}, description),
        company_name = COALESCE(${p.company_name ?? null}, company_name),
        allowed_domains = COALESCE(${p.allowed_domains ?? null}, allowed_domains),
        allow_open_invite = COALESCE(${p.allow_open_invite ?? null}::boolean, allow_open_invite),
        type = CASE WHEN ${p.allow_open_invite ?? null}::boolean IS NULL THEN type
                    WHEN ${p.allow_open_invite ?? null}::boolean THEN 'O' ELSE 'I' END,
        group_constrained = COALESCE(${p.group_constrained ?? null}::boolean, group_constrained),
        update_at = ${now}
      WHERE id = ${teamId}
      RETURNING *`.pipe(Teams))
    return rows[0]
  })

export const regenerateInvite = (teamId: string, now: number) =>
  Effect.gen(function*() {
    const db = yield* Db
    const rows = yield* db.transaction(db.sql`
      UPDATE teams SET invite_id = ${newId()}, update_at = ${now} WHERE id = ${teamId} RETURNING *`.pipe(Teams))
    return rows[0]
  })

/** Sets last_team_icon_update (the time the icon changed, or 0 for none); None for an unknown team. */
export const setIconTime = (teamId: string, iconTime: number, now: number) =>
  Effect.gen(function*() {
    const db = yield* Db
    const rows = yield* db.execute(db.sql`
      UPDATE teams SET last_team_icon_update = ${iconTime}, update_at = ${now} WHERE id = ${teamId} RETURNING *`.pipe(Teams))
    return Option.fromNullable(rows[0])
  })

/** Archives a live team; None when it was archived already. */
export const archive = (teamId: string, now: number) =>
  Effect.gen(function*() {
    const db = yield* Db
    const rows = yield* db.transaction(db.sql`
      UPDATE teams SET delete_at = ${now}, update_at = ${now} WHERE id = ${teamId} AND delete_at = 0 RETURNING *`.pipe(Teams))
    return Option.fromNullable(rows[0])
  })

export const restore = (teamId: string, now: number) =>
  Effect.gen(function*() {
    const db = yield* Db
    const rows = yield* db.transaction(db.sql`
      UPDATE teams SET delete_at = 0, update_at = ${now} WHERE id = ${teamId} RETURNING *`.pipe(Teams))
    return rows[0]
  })

/** Live teams the viewer may join or is in (every live team for system admins), by display name. */
export const listVisible = (viewer: Viewer, limit: number, offset: number, withTotal: boolean) =>
  Effect.gen(function*() {
    const db = yield* Db
    const sql = db.sql
    const visible = viewer.isSystemAdmin
      ? sql`t.delete_at = 0`
      : sql`t.delete_at = 0 AND (t.allow_open_invite OR EXISTS (
          SELECT 1 FROM team_members tm WHERE tm.team_id = t.id AND tm.user_id = ${viewer.userId} AND tm.delete_at = 0))`
    const rows = yield* db.read(sql`
      SELECT t.*, count(*) OVER () AS total FROM teams t WHERE ${visible}
      ORDER BY t.display_name, t.id LIMIT ${limit} OFFSET ${offset}`.pipe(TeamsWithTotal))
    if (!withTotal) return { rows, total: undefined }
    const total = rows.length > 0 ? Number(rows[0].total) : Number((yield* db.read(sql`
      SELECT count(*) AS n FROM teams t WHERE ${visible}`.pipe(Counts)))[0].n)
    return { rows, total }
  })

/** The team's live members, and those of them not deactivated. */
export const memberCounts = (teamId: string) =>
  Effect.gen(function*() {
    const db = yield* Db
    // The team's member rows less its deactivated users (users_deactivated_idx): joining users reads them all.
    const [row] = yield* db.read(db.sql`
      SELECT count(*) AS total,
             count(*) FILTER (WHERE NOT EXISTS (SELECT 1 FROM users u WHERE u.id = tm.user_id AND u.delete_at <> 0)) AS active
      FROM team_members tm
      WHERE tm.team_id = ${teamId} AND tm.delete_at = 0`.pipe(Totals))
    return { total: Number(row.total), active: Number(row.active) }
  })

/** The live team a (non-empty) invite id names. */
export const findByInviteId = (inviteId: string) =>
  Effect.gen(function*() {
    const db = yield* Db
    const [team] = yield* db.read(db.sql`
      SELECT * FROM teams WHERE invite_id = ${inviteId} AND invite_id <> '' AND delete_at = 0`.pipe(Teams))
    return Option.fromNullable(team)
  })

export interface TeamSearch {
  /** A LIKE pattern matched against name and display name, case-insensitively. */
  readonly pattern: string
  readonly allowOpenInvite: boolean | undefined
  readonly limit: number
  readonly offset: number
  readonly withTotal: boolean
}

/** Live teams the viewer may see whose name or display name matches. */
export const search = (viewer: Viewer, s: TeamSearch) =>
  Effect.gen(function*() {
    const db = yield* Db
    const sql = db.sql
    const visible = viewer.isSystemAdmin
      ? sql`TRUE`
      : sql`(t.allow_open_invite OR EXISTS (
          SELECT 1 FROM team_members tm WHERE tm.team_id = t.id AND tm.user_id = ${viewer.userId} AND tm.delete_at = 0))`
    const open = s.allowOpenInvite === undefined ? sql`TRUE` : sql`t.allow_open_invite = ${s.allowOpenInvite}`
    const rows = yield* db.read(sql`
      SELECT t.*, count(*) OVER () AS total FROM teams t
      WHERE t.delete_at = 0 AND ${visible} AND ${open}
        AND (lower(t.name) LIKE lower(${s.pattern}) OR lower(t.display_name) LIKE lower(${s.pattern}))
      ORDER BY t.display_name, t.id LIMIT ${s.limit} OFFSET ${s.offset}`.pipe(TeamsWithTotal))
    if (!s.withTotal) return { rows, total: undefined }
    const total = rows.length > 0 ? Number(rows[0].total) : Number((yield* db.read(sql`
      SELECT count(*) AS n FROM teams t WHERE t.delete_at = 0 AND ${visible} AND ${open}
        AND (lower(t.name) LIKE lower(${s.pattern}) OR lower(t.display_name) LIKE lower(${s.pattern}))`.pipe(Counts)))[0].n)
    return { rows, total }
  })

const ConsoleTeams = rows(
  "TeamRepo consolePage",
  Schema.Struct({ ...TeamRowSchema.fields, total: Int8Text, member_count: Int8Text, active_member_count: Int8Text, channel_count: Int8Text })
)

/**
 * The System Console's team list (system admins): teams whose name or display name contains the term, archived ones
 * too when asked, each with its member counts and its open and private channels, in one statement.
 */
export const consolePage = (q: { readonly term: string; readonly includeDeleted: boolean; readonly limit: number; readonly offset: number }) =>
  Effect.gen(function*() {
    const db = yield* Db
    const sql = db.sql
    const term = q.term.trim()
    const filters = [
      q.includeDeleted ? sql`TRUE` : sql`t.delete_at = 0`,
      term === "" ? sql`TRUE` : sql`(t.name ILIKE ${likeContaining(term)} OR t.display_name ILIKE ${likeContaining(term)})`
    ]
    return yield* db.read(sql`
      SELECT t.*, count(*) OVER () AS total,
        (SELECT count(*) FROM team_members tm WHERE tm.team_id = t.id AND tm.delete_at = 0) AS member_count,
        (SELECT count(*) FROM team_members tm JOIN users u ON u.id = tm.user_id
          WHERE tm.team_id = t.id AND tm.delete_at = 0 AND u.delete_at = 0) AS active_member_count,
        (SELECT count(*) FROM channels c WHERE c.team_id = t.id AND c.delete_at = 0 AND c.type IN ('O', 'P')) AS channel_count
      FROM teams t WHERE ${sql.and(filters)}
      ORDER BY t.display_name, t.id LIMIT ${q.limit} OFFSET ${q.offset}`.pipe(ConsoleTeams))
  })
