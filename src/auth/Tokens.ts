import { Effect, Option, Redacted } from "effect"
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

export const makeTokens = (secret: Redacted.Redacted) => {
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
    /** None for anything that is not a valid, unexpired token of ours. */
    verify: (token: string): Effect.Effect<Option.Option<TokenClaims>> =>
      Effect.promise(async () =>
        jwtVerify(token, await key, { issuer: ISSUER, algorithms: ["HS256"] }).then(
          ({ payload }) =>
            typeof payload.sid === "string" && typeof payload.sub === "string"
              ? Option.some({ sessionId: payload.sid, userId: payload.sub })
              : Option.none(),
          () => Option.none<TokenClaims>()
        )
      )
  }
}

export type Tokens = ReturnType<typeof makeTokens>
