import { Clock, Context, Effect, Layer, Schema } from "effect"
import { type Status, StatusValue } from "../../schemas/wire/Status.ts"
import { anyText } from "../../layers/SqlArrays.ts"
import { Db, type DbError } from "../../layers/Db.ts"
import { DomainEvent } from "../../schemas/Events.ts"
import { Int8, rows } from "../../layers/Rows.ts"
import { EventBus } from "../events/EventBus.ts"

/**
 * User status (online, away, dnd, offline) as Mattermost keeps it: automatic changes (a socket opens, the user goes
 * idle, the last socket closes) never override a status the user chose (`manual`), and "online" is never manual.
 * Every change publishes `status_change` to the user concerned only (mattermost-compat.md section 9).
 */
export { StatusValue }

/** @mattermost/types UserStatus (schemas/wire/Status.ts); dnd_end_time is in seconds, unlike every other timestamp. */
export type UserStatus = Status

const StatusRow = Schema.Struct({
  user_id: Schema.String,
  status: Schema.String,
  manual: Schema.Boolean,
  last_activity_at: Int8,
  dnd_end_time: Int8,
  prev_status: Schema.String
})
type StatusRow = typeof StatusRow.Type
const StatusRows = rows("Statuses statuses", StatusRow)
const UserIds = rows("Statuses user ids", Schema.Struct({ user_id: Schema.String }))
const ActiveRows = rows("Statuses active", Schema.Struct({ after: Schema.String, before: Schema.NullOr(Schema.String) }))

const asStatus = (s: string): StatusValue => (s === "online" || s === "away" || s === "dnd" ? s : "offline")

const fromRow = (row: StatusRow): UserStatus & { readonly prev_status: string } => ({
  user_id: row.user_id,
  status: asStatus(row.status),
  manual: row.manual,
  last_activity_at: Number(row.last_activity_at),
  dnd_end_time: Number(row.dnd_end_time),
  prev_status: row.prev_status
})

const offline = (userId: string) => ({
  user_id: userId,
  status: "offline" as const,
  manual: false,
  last_activity_at: 0,
  dnd_end_time: 0,
  prev_status: ""
})

export const toWire = (s: UserStatus): UserStatus => ({
  user_id: s.user_id,
  status: s.status,
  manual: s.manual,
  last_activity_at: s.last_activity_at,
  dnd_end_time: s.dnd_end_time
})

/** Idle this long with a socket open: online becomes away (Mattermost's UserStatusAwayTimeout default). */
export const AWAY_AFTER_MS = 5 * 60 * 1000

export interface StatusesService {
  /** Statuses in the order asked; users without a record are offline. */
  readonly get: (userIds: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<UserStatus>, DbError>
  /** Users sharing a channel with the given channels' members who are not offline. */
  readonly nonOfflineInChannels: (channelIds: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<UserStatus>, DbError>
  /** A status the user chose (REST or admin); dndEndTime in seconds, 0 for none. */
  readonly setManual: (userId: string, status: StatusValue, dndEndTime: number) => Effect.Effect<UserStatus, DbError>
  /** A socket opened or the user acted: online unless they chose a status; records the activity. */
  readonly active: (userId: string) => Effect.Effect<void, DbError>
  /** The client reports the user idle: away, unless offline or a chosen status (a manual report overrides). */
  readonly idle: (userId: string, manual: boolean) => Effect.Effect<void, DbError>
  /** The user's last socket in the cluster closed: offline unless they chose a status. */
  readonly disconnected: (userId: string) => Effect.Effect<void, DbError>
  /** Online users idle past AWAY_AFTER_MS become away; returns how many changed. */
  readonly awayIdle: Effect.Effect<number, DbError>
  /** Timed DND that has ended goes back to the status before it. */
  readonly endExpiredDnd: (isConnected: (userId: string) => Effect.Effect<boolean>) => Effect.Effect<number, DbError>
  /** Automatic online/away statuses of users with no socket anywhere (their node died) become offline. */
  readonly healOffline: (isConnected: (userId: string) => Effect.Effect<boolean>) => Effect.Effect<number, DbError>
}

export class Statuses extends Context.Tag("service/Statuses")<Statuses, StatusesService>() {}

type Change = (current: ReturnType<typeof fromRow>, now: number) => ReturnType<typeof fromRow> | undefined

export const make = Effect.gen(function*() {
  const db = yield* Db
  const bus = yield* EventBus
  const sql = db.sql

  const announce = (userId: string, status: StatusValue) => bus.publish(DomainEvent.StatusChange({ status, userId }), { user_id: userId })

  /** Reads the row under lock, applies the change and writes it back; publishes when the status itself moved. */
  const update = (userId: string, change: Change) =>
    Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const result = yield* db.transaction(Effect.gen(function*() {
        const rows = yield* sql`SELECT * FROM statuses WHERE user_id = ${userId} FOR UPDATE`.pipe(StatusRows)
        const current = rows[0] !== undefined ? fromRow(rows[0]) : offline(userId)
        const next = change(current, now)
        if (next === undefined) return { before: current, after: current }
        yield* sql`
          INSERT INTO statuses (user_id, status, manual, last_activity_at, dnd_end_time, prev_status)
          VALUES (${userId}, ${next.status}, ${next.manual}, ${next.last_activity_at}, ${next.dnd_end_time}, ${next.prev_status})
          ON CONFLICT (user_id) DO UPDATE SET status = excluded.status, manual = excluded.manual,
            last_activity_at = excluded.last_activity_at, dnd_end_time = excluded.dnd_end_time, prev_status = excluded.prev_status`
        return { before: current, after: next }
      }))
      if (result.before.status !== result.after.status) yield* announce(userId, result.after.status)
      return result.after
    })

  const get = (userIds: ReadonlyArray<string>) =>
    Effect.gen(function*() {
      if (userIds.length === 0) return []
      // anyText, not a list of placeholders, which made a statement text (a prepared statement on each connection,
      // and its first five plans) for every count.
      const rows = yield* db.read(sql`SELECT * FROM statuses WHERE user_id = ${anyText(sql, userIds)}`.pipe(StatusRows))
      const byId = new Map(rows.map((r) => [r.user_id, fromRow(r)]))
      return userIds.map((id) => toWire(byId.get(id) ?? offline(id)))
    })

  /** Applies an automatic change to many users found by a query, one locked update each. */
  const sweep = (userIds: ReadonlyArray<string>, change: (userId: string) => Effect.Effect<Change | undefined>) =>
    Effect.reduce(userIds, 0, (count, userId) =>
      Effect.flatMap(change(userId), (c) =>
        c === undefined
          ? Effect.succeed(count)
          : Effect.map(update(userId, c), () => count + 1)))

  const service: StatusesService = {
    get,
    nonOfflineInChannels: (channelIds) =>
      channelIds.length === 0
        ? Effect.succeed([])
        : Effect.map(
          db.read(sql`
            SELECT s.* FROM statuses s
            WHERE s.status <> 'offline'
              AND EXISTS (SELECT 1 FROM channel_members cm WHERE cm.user_id = s.user_id AND cm.channel_id = ${anyText(sql, channelIds)})`.pipe(StatusRows)),
          (rows) => rows.map((r) => toWire(fromRow(r)))
        ),
    setManual: (userId, status, dndEndTime) =>
      Effect.map(
        update(userId, (current, now) => ({
          ...current,
          status,
          manual: status !== "online",
          last_activity_at: status === "online" ? now : current.last_activity_at,
          dnd_end_time: status === "dnd" ? dndEndTime : 0,
          // Only a status the user chose comes back when DND ends; an automatic one (say "offline" because the
          // socket's first activity had not been recorded yet) would strand a connected user offline.
          prev_status: status === "dnd" ? (current.status === "dnd" ? current.prev_status : current.manual ? current.status : "") : ""
        })),
        toWire
      ),
    // `update`'s change, written as one statement: every socket that opens runs this (thousands a minute when a
    // cluster restarts), and the transaction cost four round trips (BEGIN, the locked read, the upsert, COMMIT).
    // The status before is read under the same row lock (FOR UPDATE returns the newest committed version), so a
    // change is announced exactly when `update` would announce it.
    active: (userId) =>
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        const rows = yield* db.execute(sql`
          WITH before AS MATERIALIZED (SELECT status FROM statuses WHERE user_id = ${userId} FOR UPDATE),
          changed AS (
            UPDATE statuses s SET status = CASE WHEN s.manual THEN s.status ELSE 'online' END, last_activity_at = ${now}
            FROM before WHERE s.user_id = ${userId}
            RETURNING s.status AS after, before.status AS before
          ),
          added AS (
            INSERT INTO statuses (user_id, status, manual, last_activity_at, dnd_end_time, prev_status)
            SELECT ${userId}, 'online', false, ${now}, 0, '' WHERE NOT EXISTS (SELECT 1 FROM before)
            ON CONFLICT (user_id) DO UPDATE SET
              status = CASE WHEN statuses.manual THEN statuses.status ELSE 'online' END,
              last_activity_at = excluded.last_activity_at
            RETURNING statuses.status AS after, NULL::text AS before
          )
          SELECT after, before FROM changed UNION ALL SELECT after, before FROM added`.pipe(ActiveRows))
        const row = rows[0]
        if (row === undefined) return
        // A user without a row was offline, as `offline` says.
        const before = asStatus(row.before ?? "offline")
        const after = asStatus(row.after)
        if (before !== after) yield* announce(userId, after)
      }),
    idle: (userId, manual) =>
      Effect.asVoid(update(userId, (current) => {
        if (current.status === "offline" || current.status === "away") return undefined
        if (current.manual && !manual) return undefined
        return { ...current, status: "away", manual, dnd_end_time: 0, prev_status: "" }
      })),
    disconnected: (userId) =>
      Effect.asVoid(update(userId, (current) =>
        current.manual || current.status === "offline" ? undefined : { ...current, status: "offline" })),
    awayIdle: Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const rows = yield* db.read(sql`
        SELECT user_id FROM statuses
        WHERE status = 'online' AND NOT manual AND last_activity_at < ${now - AWAY_AFTER_MS}
        LIMIT 1000`.pipe(UserIds))
      return yield* sweep(rows.map((r) => r.user_id), () =>
        Effect.succeed<Change>((current, at) =>
          current.status === "online" && !current.manual && current.last_activity_at < at - AWAY_AFTER_MS
            ? { ...current, status: "away" }
            : undefined))
    }),
    endExpiredDnd: (isConnected) =>
      Effect.gen(function*() {
        const nowSeconds = Math.floor((yield* Clock.currentTimeMillis) / 1000)
        const rows = yield* db.read(sql`
          SELECT user_id FROM statuses WHERE status = 'dnd' AND dnd_end_time > 0 AND dnd_end_time <= ${nowSeconds} LIMIT 1000`.pipe(UserIds))
        return yield* sweep(rows.map((r) => r.user_id), (userId) =>
          Effect.map(isConnected(userId), (connected): Change => (current, at) => {
            if (current.status !== "dnd" || current.dnd_end_time === 0 || current.dnd_end_time > Math.floor(at / 1000)) return undefined
            const chosen = current.prev_status === "away" || current.prev_status === "offline"
            const status: StatusValue = chosen ? asStatus(current.prev_status) : connected ? "online" : "offline"
            return { ...current, status, manual: chosen, dnd_end_time: 0, prev_status: "" }
          }))
      }),
    healOffline: (isConnected) =>
      Effect.gen(function*() {
        const rows = yield* db.read(sql`
          SELECT user_id FROM statuses WHERE status IN ('online', 'away') AND NOT manual
          ORDER BY last_activity_at LIMIT 500`.pipe(UserIds))
        return yield* sweep(rows.map((r) => r.user_id), (userId) =>
          Effect.map(isConnected(userId), (connected): Change | undefined =>
            connected
              ? undefined
              : (current) => current.manual || current.status === "offline" ? undefined : { ...current, status: "offline" }))
      })
  }
  return service
})

export const layer = Layer.effect(Statuses, make)
