import { Effect, Option, Schema } from "effect"
import { Cache } from "../../layers/Cache.ts"
import { randomToken, sha256Hex } from "../../layers/Crypto.ts"

/**
 * The short-lived values of the SSO flow, all in Cache so that any node can finish a flow another node started:
 * the OAuth state (5 minutes, the specification's lifetime), the web exchange code (60 seconds) and the mobile
 * login_code (2 minutes). Each is single use: `take` reads and deletes atomically. Keys are hashes of the values,
 * so a cache dump holds nothing usable.
 */
export const STATE_TTL = "5 minutes"
export const EXCHANGE_CODE_TTL = "60 seconds"
export const LOGIN_CODE_TTL = "2 minutes"
/** How long a spent code is remembered, to tell a replay (a security event) from a made-up code. */
export const SPENT_TTL = "10 minutes"

const MobileStart = Schema.Struct({
  redirect_to: Schema.String,
  app_state: Schema.String,
  code_challenge: Schema.String
})
export type MobileStart = typeof MobileStart.Type

const FlowState = Schema.Struct({
  provider_id: Schema.String,
  provider_key: Schema.String,
  redirect_uri: Schema.String,
  code_verifier: Schema.optional(Schema.String),
  nonce: Schema.optional(Schema.String),
  mobile: Schema.optional(MobileStart)
})
export type FlowState = typeof FlowState.Type
const FlowStateJson = Schema.parseJson(FlowState)

const Grant = Schema.Struct({
  user_id: Schema.String,
  redirect_uri: Schema.String,
  /** Mobile login codes: the app's state and PKCE challenge. */
  app_state: Schema.optional(Schema.String),
  code_challenge: Schema.optional(Schema.String)
})
export type Grant = typeof Grant.Type
const GrantJson = Schema.parseJson(Grant)

const stateKey = (value: string) => `sso:state:${sha256Hex(value)}`
const codeKey = (kind: "exchange" | "login", code: string) => `sso:${kind}:${sha256Hex(code)}`
const spentKey = (kind: "exchange" | "login", code: string) => `sso:${kind}-spent:${sha256Hex(code)}`

const decode = <A>(schema: Schema.Schema<A, string>) => (raw: Option.Option<string>) =>
  Option.flatMap(raw, Schema.decodeUnknownOption(schema))

/** Stores a new state and returns its value (random, 256 bits). */
export const putState = (state: FlowState) =>
  Effect.gen(function*() {
    const cache = yield* Cache
    const value = randomToken(32)
    yield* cache.setIfAbsent(stateKey(value), JSON.stringify(state), STATE_TTL)
    return value
  })

/** The stored state for this value, consumed; None when unknown, expired, already used or tampered with. */
export const takeState = (value: string) =>
  Effect.flatMap(Cache, (cache) => Effect.map(cache.take(stateKey(value)), decode(FlowStateJson)))

export const putCode = (kind: "exchange" | "login", grant: Grant) =>
  Effect.gen(function*() {
    const cache = yield* Cache
    const code = randomToken(32)
    yield* cache.setIfAbsent(codeKey(kind, code), JSON.stringify(grant), kind === "exchange" ? EXCHANGE_CODE_TTL : LOGIN_CODE_TTL)
    return code
  })

export type Taken =
  | { readonly _tag: "Granted"; readonly grant: Grant }
  /** A code that was valid and has been used: a replay. `sessionId` is the session the first use created. */
  | { readonly _tag: "Spent"; readonly sessionId: string }
  | { readonly _tag: "Unknown" }

/** Consumes a code. At most one caller ever gets `Granted` for a code, whatever the interleaving. */
export const takeCode = (kind: "exchange" | "login", code: string) =>
  Effect.gen(function*() {
    const cache = yield* Cache
    const grant = decode(GrantJson)(yield* cache.take(codeKey(kind, code)))
    if (Option.isSome(grant)) {
      yield* cache.set(spentKey(kind, code), "", SPENT_TTL)
      return { _tag: "Granted", grant: grant.value } satisfies Taken as Taken
    }
    const spent = yield* cache.get(spentKey(kind, code))
    return Option.match(spent, {
      onNone: (): Taken => ({ _tag: "Unknown" }),
      onSome: (sessionId): Taken => ({ _tag: "Spent", sessionId })
    })
  })

/** Remembers which session a spent code created, so that a replay can revoke it. */
export const recordSpentSession = (kind: "exchange" | "login", code: string, sessionId: string) =>
  Effect.flatMap(Cache, (cache) => cache.set(spentKey(kind, code), sessionId, SPENT_TTL))
