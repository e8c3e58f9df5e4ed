import { Context, Effect, Layer } from "effect"
import { importPKCS8, SignJWT } from "jose"
import { generateKeyPairSync } from "node:crypto"
import { Crypto } from "../../layers/Crypto.ts"
import { replaceOnce, storeOnce } from "./StoredOnce.ts"

/**
 * The server's own P-256 signing key. Mobile clients verify push payload signatures with the public half, which
 * client config publishes as AsymmetricSigningPublicKey, so the pair is generated once per installation and shared
 * by all nodes through the server_config table (the private key encrypted at rest).
 */
export interface SigningKeyService {
  /** Base64 of the DER SPKI public key: the PEM body, as Mattermost's AsymmetricSigningPublicKey. */
  readonly publicKeyBase64: string
  /** An ES256 JWT over the claims. */
  readonly sign: (claims: Record<string, unknown>) => Effect.Effect<string>
}

export class SigningKey extends Context.Tag("service/SigningKey")<SigningKey, SigningKeyService>() {}

interface StoredKey {
  readonly public_key: string
  readonly private_key_encrypted: string
}

export const SECTION = "signing_key"

export const make = Effect.gen(function*() {
  const crypto = yield* Crypto
  const generate = Effect.gen(function*() {
    const pair = generateKeyPairSync("ec", { namedCurve: "prime256v1" })
    const privatePem = pair.privateKey.export({ type: "pkcs8", format: "pem" }).toString()
    return {
      public_key: pair.publicKey.export({ type: "spki", format: "der" }).toString("base64"),
      private_key_encrypted: yield* crypto.encrypt(privatePem)
    }
  })
  const stored = yield* storeOnce<StoredKey>(SECTION, generate)
  // A key encrypted under a previous SERVICE_ENCRYPTION_KEY cannot be used: replace it (first node wins) rather
  // than refuse to start. Clients pick the new public key up with their next config fetch.
  const usable = yield* crypto.decrypt(stored.private_key_encrypted).pipe(
    Effect.map((pem) => ({ key: stored, pem })),
    Effect.catchTag("DecryptionError", () =>
      Effect.gen(function*() {
        yield* Effect.logWarning("the stored signing key does not decrypt under the current encryption key; replacing it")
        const replaced = yield* replaceOnce<StoredKey>(SECTION, stored, generate)
        return { key: replaced, pem: yield* crypto.decrypt(replaced.private_key_encrypted).pipe(Effect.orDie) }
      }))
  )
  const privateKey = yield* Effect.promise(() => importPKCS8(usable.pem, "ES256"))
  const service: SigningKeyService = {
    publicKeyBase64: usable.key.public_key,
    sign: (claims) =>
      Effect.promise(() => new SignJWT(claims).setProtectedHeader({ alg: "ES256", typ: "JWT" }).sign(privateKey))
  }
  return service
})

export const layer = Layer.effect(SigningKey, make)
