import { Context, Effect, Layer, Option, Schema } from "effect"
import { newId } from "../../layers/Crypto.ts"
import { Db, type DbError } from "../../layers/Db.ts"
import { Int8, JsonObjectOf, rows } from "../../layers/Rows.ts"

/**
 * Calls, enough to ring: the one active call of a channel (end_at = 0), who dismissed its notification, and the
 * per-channel enable switch. No media: a call here is a ringing session and its state.
 */
export interface CallRow {
  readonly id: string
  readonly channel_id: string
  readonly owner_id: string
  readonly start_at: number
  readonly end_at: number
  readonly thread_id: string
  readonly post_id: string
  readonly dismissed: Readonly<Record<string, boolean>>
}

export interface ChannelCallState {
  readonly channel_id: string
  /** None when the channel never had its switch set: the default (enabled) applies. */
  readonly enabled: Option.Option<boolean>
  readonly call: Option.Option<CallRow>
}

export interface CallRepoService {
  readonly active: (channelId: string) => Effect.Effect<Option.Option<CallRow>, DbError>
  /** Starts a call; None when one is already active in the channel. */
  readonly start: (channelId: string, ownerId: string, now: number) => Effect.Effect<Option.Option<CallRow>, DbError>
  readonly end: (channelId: string, now: number) => Effect.Effect<Option.Option<CallRow>, DbError>
  readonly dismiss: (channelId: string, userId: string) => Effect.Effect<Option.Option<CallRow>, DbError>
  readonly channelState: (channelId: string) => Effect.Effect<ChannelCallState, DbError>
  /** The caller's channels that have a call or an explicit switch. */
  readonly statesForUser: (userId: string) => Effect.Effect<ReadonlyArray<ChannelCallState>, DbError>
  readonly setEnabled: (channelId: string, enabled: boolean) => Effect.Effect<void, DbError>
}

export class CallRepo extends Context.Tag("service/CallRepo")<CallRepo, CallRepoService>() {}

const Dismissed = JsonObjectOf<Record<string, boolean>>()
const Row = Schema.Struct({
  id: Schema.String,
  channel_id: Schema.String,
  owner_id: Schema.String,
  start_at: Int8,
  end_at: Int8,
  thread_id: Schema.String,
  post_id: Schema.String,
  dismissed: Schema.NullOr(Dismissed)
})
type Row = typeof Row.Type
const CallRows = rows("CallRepo calls", Row)

const fromRow = (row: Row): CallRow => ({
  ...row,
  start_at: Number(row.start_at),
  end_at: Number(row.end_at),
  dismissed: row.dismissed ?? {}
})

const StateRow = Schema.Struct({
  channel_id: Schema.String,
  enabled: Schema.NullOr(Schema.Boolean),
  call_id: Schema.NullOr(Schema.String),
  owner_id: Schema.NullOr(Schema.String),
  start_at: Schema.NullOr(Int8),
  thread_id: Schema.NullOr(Schema.String),
  post_id: Schema.NullOr(Schema.String),
  dismissed: Schema.NullOr(Dismissed)
})
type StateRow = typeof StateRow.Type
const StateRows = rows("CallRepo channel states", StateRow)

const stateFromRow = (row: StateRow): ChannelCallState => ({
  channel_id: row.channel_id,
  enabled: Option.fromNullable(row.enabled),
  call: row.call_id === null
    ? Option.none()
    : Option.some({
      id: row.call_id,
      channel_id: row.channel_id,
      owner_id: row.owner_id ?? "",
      start_at: Number(row.start_at),
      end_at: 0,
      thread_id: row.thread_id ?? "",
      post_id: row.post_id ?? "",
      dismissed: row.dismissed ?? {}
    })
})

export const make = Effect.gen(function*() {
  const db = yield* Db
  const sql = db.sql
  const first = (rows: ReadonlyArray<Row>) => Option.map(Option.fromNullable(rows[0]), fromRow)

  const service: CallRepoService = {
    active: (channelId) => Effect.map(db.read(sql`SELECT * FROM calls WHERE channel_id = ${channelId} AND end_at = 0`.pipe(CallRows)), first),
    start: (channelId, ownerId, now) =>
      Effect.map(
        db.execute(sql`
          INSERT INTO calls (id, channel_id, owner_id, start_at) VALUES (${newId()}, ${channelId}, ${ownerId}, ${now})
          ON CONFLICT (channel_id) WHERE end_at = 0 DO NOTHING
          RETURNING *`.pipe(CallRows)),
        first
      ),
    end: (channelId, now) =>
      Effect.map(db.execute(sql`UPDATE calls SET end_at = ${now} WHERE channel_id = ${channelId} AND end_at = 0 RETURNING *`.pipe(CallRows)), first),
    dismiss: (channelId, userId) =>
      Effect.map(
        db.execute(sql`
          UPDATE calls SET dismissed = dismissed || jsonb_build_object(${userId}::text, true)
          WHERE channel_id = ${channelId} AND end_at = 0 RETURNING *`.pipe(CallRows)),
        first
      ),
    channelState: (channelId) =>
      Effect.map(
        db.read(sql`
          SELECT ${channelId}::text AS channel_id, cc.enabled, c.id AS call_id, c.owner_id, c.start_at, c.thread_id, c.post_id, c.dismissed
          FROM (SELECT 1) AS one
          LEFT JOIN calls_channels cc ON cc.channel_id = ${channelId}
          LEFT JOIN calls c ON c.channel_id = ${channelId} AND c.end_at = 0`.pipe(StateRows)),
        (rows) => stateFromRow(rows[0])
      ),
    statesForUser: (userId) =>
      Effect.map(
        db.read(sql`
          SELECT cm.channel_id, cc.enabled, c.id AS call_id, c.owner_id, c.start_at, c.thread_id, c.post_id, c.dismissed
          FROM channel_members cm
          LEFT JOIN calls_channels cc ON cc.channel_id = cm.channel_id
          LEFT JOIN calls c ON c.channel_id = cm.channel_id AND c.end_at = 0
          WHERE cm.user_id = ${userId} AND (cc.channel_id IS NOT NULL OR c.id IS NOT NULL)`.pipe(StateRows)),
        (rows) => rows.map(stateFromRow)
      ),
    setEnabled: (channelId, enabled) =>
      db.execute(sql`
        INSERT INTO calls_channels (channel_id, enabled) VALUES (${channelId}, ${enabled})
        ON CONFLICT (channel_id) DO UPDATE SET enabled = EXCLUDED.enabled`).pipe(Effect.asVoid),
  }
  return service
})

export const layer = Layer.effect(CallRepo, make)
