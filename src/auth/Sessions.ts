import { Clock, Context, Effect, Layer, Option, Schedule, Schema, Stream } from "effect"
import { DomainEvent } from "../../schemas/Events.ts"
import { AppConfig } from "../Config.ts"
import { anyText } from "../../layers/SqlArrays.ts"
import { Cache } from "../../layers/Cache.ts"
import { isId, newId, sha256Hex } from "../../layers/Crypto.ts"
import { Db, type DbError } from "../../layers/Db.ts"
import { IdRow, Int8, rows, StringMap } from "../../layers/Rows.ts"
import { CACHED_FOR_MS, makeRevocations, STAMP } from "./Revocations.ts"
import { EventBus } from "../events/EventBus.ts"
import { integrationSwitches } from "../integrations/IntegrationSettings.ts"
import { RuntimeSettings, sessionLengthsMs } from "../system/RuntimeSettings.ts"
import { makeAccessTokenRepo } from "../tokens/AccessTokenRepo.ts"
import { makeTokens } from "./Tokens.ts"
import { type Session, SessionJson, SessionLength } from "./Session.ts"

export interface NewSession {
  readonly userId: string
  readonly roles: string
  readonly lengthMs: number
  readonly deviceId?: string
  readonly isOAuth?: boolean
  readonly props?: Record<string, string>
}

export interface SessionsService {
  /** Creates a session row and returns it with its signed token. */
  readonly create: (input: NewSession) => Effect.Effect<{ readonly session: Session; readonly token: string }, DbError>
  /** The live session a token names, or None for a bad, expired or revoked token. */
  readonly lookup: (token: string) => Effect.Effect<Option.Option<Session>, DbError>
  readonly get: (sessionId: string) => Effect.Effect<Option.Option<Session>, DbError>
  readonly listForUser: (userId: string) => Effect.Effect<ReadonlyArray<Session>, DbError>
  readonly revoke: (sessionId: string) => Effect.Effect<void, DbError>
  readonly revokeForUser: (userId: string, options?: { readonly exceptSessionId?: string; readonly deviceId?: string }) => Effect.Effect<ReadonlyArray<string>, DbError>
  /** Ends every session of every user (JWT secret rotation); returns how many. */
  readonly revokeAll: Effect.Effect<number, DbError>
  /**
   * Replaces device id and merges props (device registration); with `expiresAt`, also moves the session's expiry
   * (a session that gains a mobile device lives as long as a mobile session).
   */
  readonly updateDevice: (
    sessionId: string,
    deviceId: string,
    props: Record<string, string>,
    options?: { readonly expiresAt?: number }
  ) => Effect.Effect<Option.Option<Session>, DbError>
  readonly touch: (session: Session) => Effect.Effect<void, DbError>
  /**
   * `lookup` decided without running anything, when it can be: the token verified before, and the session held by a
   * cache in this process's memory (or, beside a cache over the network, the copy this node last read or wrote).
   * Undefined whenever `lookup` would have to ask anything (the token's signature, the database, a cache over the
   * network), so the caller then runs `lookup`.
   */
  readonly lookupNow: (token: string) => Option.Option<Session> | undefined
  /** Whether `touch` would write this session's activity now (otherwise it does nothing). */
  readonly touchDue: (session: Session) => boolean
  /** Gives every session of the user new roles (a promotion or demotion takes effect at once, as in Mattermost). */
  readonly setRolesForUser: (userId: string, roles: string) => Effect.Effect<void, DbError>
}

export class Sessions extends Context.Tag("service/Sessions")<Sessions, SessionsService>() {}

/** A sessions row as read (bigint columns decoded to numbers). */
const SessionRow = Schema.Struct({
  id: Schema.String,
  user_id: Schema.String,
  create_at: Int8,
  expires_at: Int8,
  last_activity_at: Int8,
  device_id: Schema.String,
  roles: Schema.String,
  is_oauth: Schema.Boolean,
  props: StringMap
})
type SessionRow = typeof SessionRow.Type
const SessionRows = rows("Sessions sessions", SessionRow)
/** A row with the invalidation log's head read in the same snapshot (Revocations.ts). */
const StampedRows = rows("Sessions stamped", Schema.Struct({ ...SessionRow.fields, stamp: Int8 }))
const StampRows = rows("Sessions stamp", Schema.Struct({ stamp: Int8 }))
const Ids = rows("Sessions ids", IdRow)

const fromRow = (row: SessionRow): Session => ({
  id: row.id,
  token: "",
  create_at: row.create_at,
  expires_at: row.expires_at,
  last_activity_at: row.last_activity_at,
  user_id: row.user_id,
  device_id: row.device_id,
  roles: row.roles,
  is_oauth: row.is_oauth,
  expired_notify: false,
  props: row.props ?? {},
  team_members: [],
  local: false
})

/**
 * A session as a cache holds it: read from the database at `readAt`, when the invalidation log's head was `stamp`.
 * Stored as `${stamp}|${readAt}|${session JSON}` with Cache.setVersioned, so a copy read before a change can never
 * be written back over the change's tombstone (`${seq}|`).
 */
interface Copy {
  readonly session: Session
  readonly stamp: number
  readonly readAt: number
}
const parseCopy = (text: string): Copy | undefined => {
  const first = text.indexOf("|")
  const second = first < 0 ? -1 : text.indexOf("|", first + 1)
  // A tombstone has no second bar: the session ended or changed, the database says what it is now.
  if (second < 0) return undefined
  const stamp = Number(text.slice(0, first))
  const readAt = Number(text.slice(first + 1, second))
  const session = decode(text.slice(second + 1))
  return Option.isSome(session) && Number.isFinite(stamp) && Number.isFinite(readAt)
    ? { session: session.value, stamp, readAt }
    : undefined
}
/** Mattermost's SessionUserAccessTokenExpiryHours: a token's session lasts as long as the token (100 years). */
export const ACCESS_TOKEN_SESSION_MS = 100 * 365 * 24 * 60 * 60 * 1000
const ACTIVITY_WRITE_INTERVAL_MS = 5 * 60 * 1000
const ACTIVITY_FLUSH = "1 second"
const cacheKey = (id: string) => `session:${id}`
const DECODED_MEMO_SIZE = 10_000
/** Sessions whose latest copy a node keeps beside a cache over the network (`near`): about 1 KB each. */
const NEAR_SIZE = 50_000
const encode = Schema.encodeSync(SessionJson)
const decode = Schema.decodeUnknownOption(SessionJson)

export const make = Effect.gen(function*() {
  const config = yield* AppConfig
  const db = yield* Db
  const cache = yield* Cache
  const sql = db.sql
  const tokens = makeTokens(config.jwtSecretValue)
  const settings = yield* RuntimeSettings
  /**
   * ServiceSettings.SessionIdleTimeoutInMinutes, as Mattermost's GetSession: a web session (not a mobile app's, an
   * OAuth app's or a personal access token's) unused for longer ends. Activity is written at most every
   * ACTIVITY_WRITE_INTERVAL_MS, or every half timeout when that is shorter, so that a session in use never looks idle.
   */
  const idleMs = () => sessionLengthsMs(settings.current()).idle
  const idleOut = (session: Session, now: number) => {
    const idle = idleMs()
    return idle > 0 && session.device_id === "" && !session.is_oauth && session.props.is_mobile !== "true" &&
      session.props.type !== "UserAccessToken" && now - session.last_activity_at > idle
  }
  const writeInterval = () => {
    const idle = idleMs()
    return idle > 0 ? Math.min(ACTIVITY_WRITE_INTERVAL_MS, idle / 2) : ACTIVITY_WRITE_INTERVAL_MS
  }
  // The synchronous lookups (the fast path's, outside any effect) read this layer's Clock directly.
  const clock = yield* Effect.clock
  /** Sessions whose activity is due to be written: id -> time. */
  const pendingActivity = new Map<string, number>()
  const revocations = yield* makeRevocations(db)
  /** The copy each session object came from, so the activity write keeps its stamp and read time. */
  const copies = new WeakMap<Session, Copy>()

  // The text last decoded per session: the cache answers the same text on every request of a session, and decoding it
  // with the Schema each time cost more than the rest of the lookup. Only the identical text reuses the result, so an
  // entry the cache changed or dropped (revocation, device update) is decoded again or not found.
  const decoded = new Map<string, { readonly text: string; readonly copy: Copy | undefined }>()
  /**
   * With a cache over the network (Redis), the latest copy of each session this node read or wrote, so that
   * `lookupNow` can decide without a round trip. It is honoured by the same rule as a copy in the cache (the
   * invalidation log: Revocations.ts), which makes it exactly as current: every change of a session is recorded there,
   * whichever node made it. What the log does not record is another node's activity write (last_activity_at): a copy
   * here may be older than the cache's, so a session it would call idle is decided by `lookup`, which reads the cache.
   */
  const near = cache.peek === undefined ? new Map<string, Copy>() : undefined
  const keepNear = (copy: Copy) => {
    if (near === undefined) return
    const id = copy.session.id
    const known = near.get(id)
    // A later change wins; between copies of the same state, the later activity.
    const newer = known !== undefined &&
      (known.stamp > copy.stamp || (known.stamp === copy.stamp && known.session.last_activity_at > copy.session.last_activity_at))
    if (newer) return
    near.delete(id)
    if (near.size >= NEAR_SIZE) near.delete(near.keys().next().value!)
    near.set(id, copy)
  }
  const copyOf = (id: string, text: string) => {
    const hit = decoded.get(id)
    if (hit !== undefined && hit.text === text) return hit.copy
    const copy = parseCopy(text)
    if (copy !== undefined) {
      copies.set(copy.session, copy)
      keepNear(copy)
    }
    if (decoded.size >= DECODED_MEMO_SIZE) decoded.delete(decoded.keys().next().value!)
    decoded.set(id, { text, copy })
    return copy
  }
  /** A cached copy counts only while this node can tell it is current (Revocations.ts); else the database answers. */
  const honoured = (id: string, copy: Copy | undefined, now: number): Option.Option<Session> =>
    copy !== undefined && revocations.honours(id, copy.stamp, copy.readAt, now) ? Option.some(copy.session) : Option.none()
  // The cache only speeds lookups up: when it fails, the database answers.
  const cached = (id: string) =>
    Effect.flatMap(Clock.currentTimeMillis, (now) =>
      cache.get(cacheKey(id)).pipe(
        Effect.map(Option.flatMap((text) => honoured(id, copyOf(id, text), now))),
        Effect.orElseSucceed(() => Option.none<Session>())
      ))
  /** Caches a copy for what is left of its life; a copy older than a change of its session is refused by the cache. */
  const remember = (copy: Copy) =>
    Effect.flatMap(Clock.currentTimeMillis, (now) => {
      const left = copy.readAt + CACHED_FOR_MS - now
      return left <= 0 ? Effect.void : cache.setVersioned(
        cacheKey(copy.session.id),
        copy.stamp,
        `${copy.readAt}|${encode(copy.session)}`,
        left
      ).pipe(Effect.ignore)
    })
  const stamped = (session: Session, stamp: number, readAt: number) => {
    const copy = { session, stamp, readAt }
    copies.set(session, copy)
    keepNear(copy)
    return copy
  }
  /** The change's tombstone: copies read before change `seq` cannot be cached again (nor read, having no body). */
  const forget = (ids: ReadonlyArray<string>, seq: number) =>
    Effect.forEach(ids, (id) => cache.setVersioned(cacheKey(id), seq, "", CACHED_FOR_MS).pipe(Effect.ignore), { discard: true })
  const bus = yield* EventBus
  if (near !== undefined) {
    // Another node's logout or revocation tombstones the cache's copy at once, but not the copy this node keeps:
    // its bus event does, so that no node answers a deleted session while its sockets are being closed everywhere.
    yield* bus.sessionsEnded.pipe(
      Stream.runForEach((ids) => Effect.sync(() => revocations.endedElsewhere(ids, clock.unsafeCurrentTimeMillis()))),
      Effect.forkScoped
    )
  }
  /** After the DELETE (autocommitted): every node closes the sockets these sessions authenticated. */
  const ended = (ids: ReadonlyArray<string>) =>
    ids.length === 0 ? Effect.void : bus.publish(DomainEvent.SessionEnded({ sessionIds: ids }), {})

  /** The session from the database, cached with the log's head read in the same statement. */
  const read = (id: string) =>
    Effect.gen(function*() {
      const readAt = yield* Clock.currentTimeMillis
      const [row] = yield* db.read(sql`SELECT s.*, ${sql.literal(STAMP)} AS stamp FROM sessions s WHERE id = ${id}`.pipe(StampedRows))
      if (row === undefined) return Option.none<Session>()
      const session = fromRow(row)
      yield* remember(stamped(session, row.stamp, readAt))
      return Option.some(session)
    })
  const get = (id: string) =>
    db.read(sql`SELECT * FROM sessions WHERE id = ${id}`.pipe(SessionRows)).pipe(
      Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), fromRow))
    )

  /**
   * A change of sessions (statements answering the ids they touched), recorded in the invalidation log in its
   * transaction; then each changed session's cached copy becomes the change's tombstone.
   */
  const change = <E>(statement: Effect.Effect<ReadonlyArray<{ readonly id: string }>, E>, every = false) =>
    Effect.gen(function*() {
      const done = yield* revocations.record(Effect.map(statement, (rows) => rows.map((r) => r.id)), every)
      yield* forget(done.ids, done.seq)
      return done.ids
    })
  /** Sessions deleted: after the commit, every node closes the sockets these sessions authenticated. */
  const end = <E>(statement: Effect.Effect<ReadonlyArray<{ readonly id: string }>, E>, every = false) =>
    Effect.tap(change(statement, every), ended)

  const accessTokens = makeAccessTokenRepo(db)
  const live = (session: Option.Option<Session>, now: number) => Option.filter(session, (s) => s.expires_at > now)

  /**
   * A personal access token (26 characters, no dots: never one of our JWTs) authenticates as its UserAccessToken
   * session. The session is recreated while the token is active and its user is not deactivated, so that signing
   * out everywhere does not break integrations, as in Mattermost; disabling or revoking the token ends it.
   */
  const accessTokenLookup = (token: string): Effect.Effect<Option.Option<Session>, DbError> =>
    Effect.gen(function*() {
      if (!isId(token)) return Option.none()
      const found = yield* accessTokens.byHash(sha256Hex(token))
      if (Option.isNone(found) || !found.value.is_active || !found.value.user_active) return Option.none()
      const row = found.value
      const now = yield* Clock.currentTimeMillis
      const expiresAt = Number(row.expires_at)
      if (expiresAt > 0 && expiresAt <= now) return Option.none()
      // Turning the setting off stops every token at once, as in Mattermost.
      const switches = yield* integrationSwitches.pipe(Effect.provideService(Db, db))
      if (!switches.enableUserAccessTokens) return Option.none()
      if (row.session_id !== null) {
        let session = yield* cached(row.session_id)
        if (Option.isNone(session)) session = yield* read(row.session_id)
        if (Option.isSome(live(session, now))) return session
      }
      const { session } = yield* service.create({
        userId: row.user_id,
        roles: row.user_roles,
        lengthMs: ACCESS_TOKEN_SESSION_MS,
        // As Mattermost marks a bot's session: its posts carry props.from_bot.
        props: { type: "UserAccessToken", user_access_token_id: row.id, ...(row.user_is_bot ? { is_bot: "true" } : {}) }
      })
      if (yield* accessTokens.claimSession(row.id, row.session_id, session.id)) return Option.some(session)
      // Another request recreated it first: use that one.
      yield* service.revoke(session.id)
      const again = yield* accessTokens.byId(row.id)
      return Option.isSome(again) && again.value.is_active && again.value.session_id !== null
        ? live(yield* get(again.value.session_id), now)
        : Option.none()
    })

  const service: SessionsService = {
    create: (input) =>
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        const session: Session = {
          id: newId(),
          token: "",
          create_at: now,
          expires_at: now + input.lengthMs,
          last_activity_at: now,
          user_id: input.userId,
          device_id: input.deviceId ?? "",
          roles: input.roles,
          is_oauth: input.isOAuth ?? false,
          expired_notify: false,
          props: { csrf: newId(), ...input.props },
          team_members: [],
          local: false
        }
        const [{ stamp }] = yield* db.execute(sql`
          INSERT INTO sessions (id, user_id, create_at, expires_at, last_activity_at, device_id, roles, is_oauth, props)
          VALUES (${session.id}, ${session.user_id}, ${now}, ${session.expires_at}, ${now}, ${session.device_id},
                  ${session.roles}, ${session.is_oauth}, ${JSON.stringify(session.props)}::jsonb)
          RETURNING ${sql.literal(STAMP)} AS stamp`.pipe(StampRows))
        // The row's expires_at decides; the token only caps it at the longest session there is, because a session can
        // be extended after issue (a phone registering its device turns a web-length session into a mobile one).
        const token = yield* tokens.sign(
          { sessionId: session.id, userId: session.user_id },
          Math.max(session.expires_at, now + SessionLength.mobile, now + sessionLengthsMs(settings.current()).mobile)
        )
        yield* remember(stamped(session, stamp, now))
        return { session, token }
      }),
    lookup: (token) =>
      Effect.gen(function*() {
        if (!token.includes(".")) return yield* accessTokenLookup(token)
        const claims = yield* tokens.verify(token)
        if (Option.isNone(claims)) return Option.none()
        const now = yield* Clock.currentTimeMillis
        let session = yield* cached(claims.value.sessionId)
        if (Option.isNone(session)) session = yield* read(claims.value.sessionId)
        const live = Option.filter(session, (s) => s.user_id === claims.value.userId && s.expires_at > now)
        if (Option.isSome(live) && idleOut(live.value, now)) {
          yield* service.revoke(live.value.id)
          return Option.none()
        }
        return live
      }),
    get,
    listForUser: (userId) =>
      db.read(sql`SELECT * FROM sessions WHERE user_id = ${userId} ORDER BY last_activity_at DESC`.pipe(SessionRows)).pipe(
        Effect.map((rows) => rows.map(fromRow))
      ),
    revoke: (id) => Effect.asVoid(end(sql`DELETE FROM sessions WHERE id = ${id} RETURNING id`.pipe(Ids))),
    revokeForUser: (userId, options = {}) =>
      end(sql`
        DELETE FROM sessions WHERE user_id = ${userId}
          AND id <> ${options.exceptSessionId ?? ""}
          ${options.deviceId !== undefined ? sql`AND device_id = ${options.deviceId}` : sql``}
        RETURNING id`.pipe(Ids)),
    revokeAll: Effect.map(end(sql`DELETE FROM sessions RETURNING id`.pipe(Ids), true), (ids) => ids.length),
    setRolesForUser: (userId, roles) =>
      Effect.asVoid(change(sql`UPDATE sessions SET roles = ${roles} WHERE user_id = ${userId} RETURNING id`.pipe(Ids))),
    updateDevice: (id, deviceId, props, options = {}) =>
      Effect.gen(function*() {
        let updated: ReadonlyArray<SessionRow> = []
        yield* change(Effect.map(
          sql`
            UPDATE sessions SET device_id = ${deviceId}, props = props || ${JSON.stringify(props)}::jsonb,
              expires_at = ${options.expiresAt === undefined ? sql`expires_at` : sql`${options.expiresAt}`}
            WHERE id = ${id} RETURNING *`.pipe(SessionRows),
          (rows) => {
            updated = rows
            return rows
          }
        ))
        return Option.map(Option.fromNullable(updated[0]), fromRow)
      }),
    lookupNow: (token) => {
      const peek = cache.peek
      if (!token.includes(".")) return undefined
      const now = clock.unsafeCurrentTimeMillis()
      const claims = tokens.verifiedNow(token, now)
      if (claims === undefined) return undefined
      let copy: Copy | undefined
      if (peek === undefined) copy = near?.get(claims.sessionId)
      else {
        const text = peek(cacheKey(claims.sessionId))
        if (Option.isSome(text)) copy = copyOf(claims.sessionId, text.value)
      }
      // Not cached, cached text that does not decode, or a copy this node cannot vouch for: `lookup` reads the
      // database then.
      if (copy === undefined) return undefined
      const session = honoured(claims.sessionId, copy, now)
      if (Option.isNone(session)) return undefined
      // An idle session is ended by `lookup`.
      if (idleOut(session.value, now)) return undefined
      return Option.filter(session, (s) => s.user_id === claims.userId && s.expires_at > now)
    },
    touchDue: (session) => clock.unsafeCurrentTimeMillis() - session.last_activity_at >= writeInterval(),
    touch: (session) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => {
        if (now - session.last_activity_at < writeInterval()) return Effect.void
        pendingActivity.set(session.id, now)
        // The copy keeps its stamp and read time: writing the activity back never makes a copy live longer, and the
        // cache refuses it once the session has ended or changed.
        const copy = copies.get(session)
        if (copy === undefined) return Effect.void
        return remember(stamped({ ...session, last_activity_at: now }, copy.stamp, copy.readAt))
      })
  }

  // Activity is written in batches: one UPDATE per ACTIVITY_FLUSH interval for every session that became due meanwhile
  // (each at most once per ACTIVITY_WRITE_INTERVAL_MS), instead of a statement and its commit per session; the cache
  // has the new time at once. What is pending is written when the service stops.
  const flushActivity = Effect.suspend(() => {
    if (pendingActivity.size === 0) return Effect.void
    const ids = [...pendingActivity.keys()]
    let at = 0
    for (const t of pendingActivity.values()) at = Math.max(at, t)
    pendingActivity.clear()
    // One statement text and plan whatever the batch size (anyText).
    return db.execute(sql`UPDATE sessions SET last_activity_at = ${at} WHERE id = ${anyText(sql, ids)} AND last_activity_at < ${at}`)
  }).pipe(Effect.ignore)
  yield* flushActivity.pipe(Effect.repeat(Schedule.spaced(ACTIVITY_FLUSH)), Effect.forkScoped)
  yield* Effect.addFinalizer(() => flushActivity)
  return service
})

export const layer = Layer.scoped(Sessions, make)
