import { Context, Effect, Layer, Option, Schema } from "effect"
import { Db, type DbError } from "../../layers/Db.ts"
import { Int8, rows } from "../../layers/Rows.ts"
import { parseDeviceId, proxyPlatformFor } from "./DeviceId.ts"
import { anyText } from "../../layers/SqlArrays.ts"

/**
 * The device registry: where a user's pushes go. A device is reached either through a session that carries a
 * Mattermost device id (PUT /users/sessions/device or login; it stops when the session ends) or through a native
 * registration (POST /users/me/device; it stops when it goes stale or the provider rejects its token).
 */
export interface PushDevice {
  readonly userId: string
  readonly token: string
  readonly platform: "android" | "ios"
  readonly proxyPlatform: string
  /** The session a Mattermost app registered from; its device id is cleared when the token dies. */
  readonly sessionId: Option.Option<string>
  /** An iOS PushKit token (the session's voip_device_id), for call pushes. */
  readonly voip: Option.Option<{ readonly token: string; readonly proxyPlatform: string }>
}

export interface NativeRegistration {
  readonly userId: string
  readonly deviceId: string
  readonly token: string
  readonly platform: "android" | "ios"
  readonly now: number
}

export interface DeviceRepoService {
  /** Upserts a native registration; the token leaves any other user's registrations (the device changed hands). */
  readonly registerNative: (input: NativeRegistration) => Effect.Effect<{ readonly create_at: number; readonly last_seen_at: number }, DbError>
  /** Records (or refreshes) the registration a session's device id implies. */
  readonly recordSessionDevice: (input: NativeRegistration & { readonly sessionId: string }) => Effect.Effect<void, DbError>
  /** Every live device of these users, one per token, skipping sessions that turned notifications off. */
  readonly devicesOf: (userIds: ReadonlyArray<string>, now: number) => Effect.Effect<ReadonlyArray<PushDevice>, DbError>
  /** Forgets a token everywhere it is registered. */
  readonly removeToken: (token: string) => Effect.Effect<void, DbError>
  readonly recordAck: (input: { readonly ackId: string; readonly userId: string; readonly type: string; readonly postId: string; readonly platform: string; readonly receivedAt: number; readonly now: number }) => Effect.Effect<void, DbError>
  /** Deletes registrations not seen since `seenBefore` and acks older than `acksBefore`; returns the registrations removed. */
  readonly sweep: (seenBefore: number, acksBefore: number) => Effect.Effect<number, DbError>
}

export class DeviceRepo extends Context.Tag("service/DeviceRepo")<DeviceRepo, DeviceRepoService>() {}

const Registered = rows("DeviceRepo registerNative", Schema.Struct({ create_at: Int8, last_seen_at: Int8 }))
const SessionDevices = rows("DeviceRepo session devices", Schema.Struct({
  user_id: Schema.String,
  id: Schema.String,
  device_id: Schema.String,
  voip_device_id: Schema.NullOr(Schema.String),
  disabled: Schema.NullOr(Schema.String)
}))
/** Written by registerNative only, with its typed platform. */
const Registrations = rows("DeviceRepo registrations", Schema.Struct({
  user_id: Schema.String,
  token: Schema.String,
  platform: Schema.Literal("android", "ios")
}))
const UserIds = rows("DeviceRepo sweep", Schema.Struct({ user_id: Schema.String }))

export const make = Effect.gen(function*() {
  const db = yield* Db
  const sql = db.sql

  const service: DeviceRepoService = {
    registerNative: (input) =>
      db.transaction(Effect.gen(function*() {
        yield* sql`DELETE FROM device_registrations WHERE token = ${input.token} AND user_id <> ${input.userId}`
        const rows = yield* sql`
          INSERT INTO device_registrations (user_id, device_id, token, platform, create_at, last_seen_at, session_id)
          VALUES (${input.userId}, ${input.deviceId}, ${input.token}, ${input.platform}, ${input.now}, ${input.now}, NULL)
          ON CONFLICT (user_id, device_id) DO UPDATE
            SET token = EXCLUDED.token, platform = EXCLUDED.platform, last_seen_at = EXCLUDED.last_seen_at, session_id = NULL
          RETURNING create_at, last_seen_at`.pipe(Registered)
        return { create_at: Number(rows[0].create_at), last_seen_at: Number(rows[0].last_seen_at) }
      })),
    recordSessionDevice: (input) =>
      db.execute(sql`
        INSERT INTO device_registrations (user_id, device_id, token, platform, create_at, last_seen_at, session_id)
        VALUES (${input.userId}, ${input.deviceId}, ${input.token}, ${input.platform}, ${input.now}, ${input.now}, ${input.sessionId})
        ON CONFLICT (user_id, device_id) DO UPDATE
          SET token = EXCLUDED.token, platform = EXCLUDED.platform, last_seen_at = EXCLUDED.last_seen_at, session_id = EXCLUDED.session_id`
      ).pipe(Effect.asVoid),
    devicesOf: (userIds, now) =>
      Effect.gen(function*() {
        if (userIds.length === 0) return []
        const [sessions, registrations] = yield* Effect.all([
          db.read(sql`
            SELECT user_id, id, device_id, props->>'voip_device_id' AS voip_device_id,
                   props->>'device_notification_disabled' AS disabled
            FROM sessions
            WHERE user_id = ${anyText(sql, userIds)} AND device_id <> '' AND expires_at > ${now}
            ORDER BY last_activity_at DESC`.pipe(SessionDevices)),
          db.read(sql`
            SELECT user_id, token, platform FROM device_registrations
            WHERE user_id = ${anyText(sql, userIds)} AND session_id IS NULL
            ORDER BY last_seen_at DESC`.pipe(Registrations))
        ], { concurrency: 2 })
        const seen = new Set<string>()
        const out: Array<PushDevice> = []
        const add = (device: PushDevice) => {
          const key = `${device.userId}|${device.token}`
          if (seen.has(key)) return
          seen.add(key)
          out.push(device)
        }
        for (const row of sessions) {
          const parsed = parseDeviceId(row.device_id)
          if (Option.isNone(parsed) || row.disabled === "true") continue
          const voip = Option.flatMap(Option.fromNullable(row.voip_device_id), parseDeviceId)
          add({
            userId: row.user_id,
            token: parsed.value.token,
            platform: parsed.value.platform,
            proxyPlatform: parsed.value.proxyPlatform,
            sessionId: Option.some(row.id),
            voip: Option.map(Option.filter(voip, (v) => v.platform === "ios"), (v) => ({ token: v.token, proxyPlatform: v.proxyPlatform }))
          })
        }
        for (const row of registrations) {
          add({
            userId: row.user_id,
            token: row.token,
            platform: row.platform,
            proxyPlatform: proxyPlatformFor(row.platform),
            sessionId: Option.none(),
            voip: Option.none()
          })
        }
        return out
      }),
    removeToken: (token) => db.execute(sql`DELETE FROM device_registrations WHERE token = ${token}`).pipe(Effect.asVoid),
    recordAck: (input) =>
      db.execute(sql`
        INSERT INTO push_acks (ack_id, user_id, type, post_id, platform, received_at, create_at)
        VALUES (${input.ackId}, ${input.userId}, ${input.type}, ${input.postId}, ${input.platform}, ${input.receivedAt}, ${input.now})
        ON CONFLICT (ack_id) DO NOTHING`).pipe(Effect.asVoid),
    sweep: (seenBefore, acksBefore) =>
      Effect.gen(function*() {
        const removed = yield* db.execute(sql`
          DELETE FROM device_registrations WHERE last_seen_at < ${seenBefore} RETURNING user_id`.pipe(UserIds))
        yield* db.execute(sql`DELETE FROM push_acks WHERE create_at < ${acksBefore}`)
        return removed.length
      })
  }
  return service
})

export const layer = Layer.effect(DeviceRepo, make)
