import { Clock, Effect, Option, Redacted } from "effect"
import { jwtVerify, SignJWT } from "jose"

/**
 * Session tokens: HS256 JWTs signed with SERVICE_JWT_SECRET that name a revocable session row. Changing the secret
 * makes every token fail verification, which signs everybody out.
 */
const ISSUER = "the-service"

export interface TokenClaims {
  readonly sessionId: string
  readonly userId: string
}

/**
 * How many verified tokens are remembered. A token's signature and claims cannot change, so remembering that a token
 * verified is safe until it expires; whether its session still lives is decided by the session lookup that follows on
 * every request, so revocation is unaffected. Without it each request paid an HMAC through WebCrypto (about a tenth
 * of a request's CPU, issue 10).
 */
const VERIFIED_CACHE_SIZE = 10_000

export const makeTokens = (secret: Redacted.Redacted) => {
  /** token -> its claims and its `exp` in ms; in insertion order, so the oldest entry is the first one dropped. */
  const verified = new Map<string, { readonly claims: TokenClaims; readonly expiresAtMs: number }>()
  const remember = (token: string, claims: TokenClaims, expiresAtMs: number) => {
    if (verified.size >= VERIFIED_CACHE_SIZE) verified.delete(verified.keys().next().value!)
    verified.set(token, { claims, expiresAtMs })
  }
  // Imported once: jose would import raw key bytes again on every sign and verify (a CryptoKey each request).
  const key = crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(Redacted.value(secret)),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign", "verify"]
  )
  // A rejection surfaces where the key is awaited; this only keeps it from counting as unhandled meanwhile.
  key.catch(() => {})
  const verifyAnew = (token: string): Effect.Effect<Option.Option<TokenClaims>> =>
    Effect.promise(async () =>
      jwtVerify(token, await key, { issuer: ISSUER, algorithms: ["HS256"] }).then(
        ({ payload }) => {
          if (typeof payload.sid !== "string" || typeof payload.sub !== "string") return Option.none()
          const claims = { sessionId: payload.sid, userId: payload.sub }
          if (typeof payload.exp === "number") remember(token, claims, payload.exp * 1000)
          return Option.some(claims)
        },
        () => Option.none<TokenClaims>()
      )
    )
  /** The claims of a token verified before and not expired at `now` (jose checks `exp` against the wall clock too). */
  const verifiedNow = (token: string, now: number): TokenClaims | undefined => {
    const hit = verified.get(token)
    if (hit === undefined) return undefined
    if (hit.expiresAtMs > now) return hit.claims
    verified.delete(token)
    return undefined
  }
  return {
    sign: (claims: TokenClaims, expiresAtMs: number) =>
      Effect.promise(async () =>
        new SignJWT({ sid: claims.sessionId })
          .setProtectedHeader({ alg: "HS256", typ: "JWT" })
          .setSubject(claims.userId)
          .setIssuer(ISSUER)
          .setIssuedAt()
          .setExpirationTime(Math.floor(expiresAtMs / 1000))
          .sign(await key)
      ),
    /** Undefined when `verify` has to decide; `now` from Clock (callers outside an effect read it synchronously). */
    verifiedNow,
    /** None for anything that is not a valid, unexpired token of ours. */
    verify: (token: string): Effect.Effect<Option.Option<TokenClaims>> => {
      return Effect.flatMap(Clock.currentTimeMillis, (now) => {
        const hit = verifiedNow(token, now)
        return hit !== undefined ? Effect.succeed(Option.some(hit)) : verifyAnew(token)
      })
    }
  }
}

export type Tokens = ReturnType<typeof makeTokens>
