import { hash as argon2Hash, verify as argon2Verify } from "@node-rs/argon2"
import bcrypt from "bcryptjs"
import { Context, Data, Effect, Layer, Redacted } from "effect"
import { verifyPbkdf2 } from "./PasswordHashes.ts"
import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes, randomFillSync, timingSafeEqual } from "node:crypto"

/**
 * Secrets at rest (AES-256-GCM under SERVICE_ENCRYPTION_KEY), password hashes (argon2id; bcrypt and PBKDF2 accepted
 * for imported accounts) and identifiers. Hashing runs on libuv's thread pool through the native binding, never on the
 * event loop.
 */
export class DecryptionError extends Data.TaggedError("DecryptionError")<{ readonly reason: string }> {}

export interface CryptoService {
  readonly encrypt: (plaintext: string) => Effect.Effect<string>
  readonly decrypt: (ciphertext: string) => Effect.Effect<string, DecryptionError>
  readonly hashPassword: (password: string) => Effect.Effect<string>
  /** Accepts argon2 hashes, and bcrypt ($2a$/$2b$/$2y$) and PBKDF2 ($pbkdf2$, Mattermost v11) hashes of imported accounts. */
  readonly verifyPassword: (password: string, hash: string) => Effect.Effect<boolean>
}

export class Crypto extends Context.Tag("service/Crypto")<Crypto, CryptoService>() {}

const ID_ALPHABET = "ybndrfg8ejkmcpqxot1uwisza345h769"

/**
 * A Mattermost id: 26 lowercase base32 characters from 16 random bytes. Built as one flat string (not by appending a
 * character at a time, which leaves a rope of 26 pieces per id in memory: ids are held per socket and per row): the
 * characters' codes go into a scratch buffer, copied out as one string.
 */
/**
 * Random bytes for ids, drawn from the CSPRNG 4 KB at a time (as Node's randomUUID does): a `randomBytes(16)` per id
 * (a Buffer and a call into OpenSSL each) was 4% of a cached GET /users/me's CPU (every request gets an id). Each
 * byte is used once; the pool is refilled in place when spent.
 */
const ID_POOL = randomFillSync(Buffer.allocUnsafe(4096))
let idPoolOffset = 0

/** The alphabet's character codes, and the 26 bytes of the id being built (one id at a time: this is synchronous). */
const ID_CODES = Buffer.from(ID_ALPHABET, "latin1")
const ID_OUT = Buffer.allocUnsafe(26)

export const newId = (): string => {
  if (idPoolOffset + 16 > ID_POOL.length) {
    randomFillSync(ID_POOL)
    idPoolOffset = 0
  }
  const start = idPoolOffset
  idPoolOffset += 16
  let bits = 0
  let value = 0
  let n = 0
  for (let i = start; i < start + 16; i++) {
    value = ((value << 8) | ID_POOL[i]) & 0xffff
    bits += 8
    while (bits >= 5) {
      ID_OUT[n++] = ID_CODES[(value >>> (bits - 5)) & 31]
      bits -= 5
    }
  }
  if (bits > 0) ID_OUT[n++] = ID_CODES[(value << (5 - bits)) & 31]
  // One copy into a new flat one-byte string: a third of the time of 26 one-character strings joined (issue 10).
  return ID_OUT.toString("latin1", 0, 26)
}

export const isId = (s: string) => /^[a-z0-9]{26}$/.test(s)

/** An opaque random token, URL-safe. */
export const randomToken = (bytes = 32) => randomBytes(bytes).toString("base64url")

export const sha256Hex = (s: string) => createHash("sha256").update(s).digest("hex")

/** Constant-time string comparison (hashes both sides first so that lengths do not leak). */
export const safeEqual = (a: string, b: string) =>
  timingSafeEqual(createHash("sha256").update(a).digest(), createHash("sha256").update(b).digest())

const VERSION = "v1"

const deriveKey = (secret: Redacted.Redacted) =>
  Buffer.from(hkdfSync("sha256", Redacted.value(secret), "the-service", "secrets-at-rest/aes-256-gcm", 32))

export interface HashCost {
  readonly memoryCost: number
  readonly timeCost: number
}

/** OWASP's argon2id baseline: 19 MiB, two passes. */
export const productionHashCost: HashCost = { memoryCost: 19456, timeCost: 2 }
/** Cheap parameters for tests only. */
export const testHashCost: HashCost = { memoryCost: 1024, timeCost: 1 }

export const make = (encryptionKey: Redacted.Redacted, cost: HashCost = productionHashCost): CryptoService => {
  const key = deriveKey(encryptionKey)
  return {
    encrypt: (plaintext) =>
      Effect.sync(() => {
        const iv = randomBytes(12)
        const cipher = createCipheriv("aes-256-gcm", key, iv)
        const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()])
        return `${VERSION}:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString("base64")}`
      }),
    decrypt: (ciphertext) =>
      Effect.try({
        try: () => {
          const [version, payload] = ciphertext.split(":", 2)
          if (version !== VERSION || payload === undefined) throw new Error("unknown format")
          const raw = Buffer.from(payload, "base64")
          const decipher = createDecipheriv("aes-256-gcm", key, raw.subarray(0, 12))
          decipher.setAuthTag(raw.subarray(12, 28))
          return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString("utf8")
        },
        catch: () => new DecryptionError({ reason: "ciphertext is corrupt or was encrypted under another key" })
      }),
    hashPassword: (password) =>
      Effect.promise(() => argon2Hash(password, { algorithm: 2, memoryCost: cost.memoryCost, timeCost: cost.timeCost, parallelism: 1 })),
    verifyPassword: (password, hash) =>
      Effect.promise(() =>
        /^\$2[aby]\$/.test(hash)
          ? bcrypt.compare(password, hash)
          : hash.startsWith("$argon2")
          ? argon2Verify(hash, password)
          : hash.startsWith("$pbkdf2$")
          ? verifyPbkdf2(password, hash)
          : Promise.resolve(false)
      ).pipe(Effect.catchAllDefect(() => Effect.succeed(false)))
  }
}

export const layer = (encryptionKey: Redacted.Redacted, cost?: HashCost) => Layer.succeed(Crypto, make(encryptionKey, cost))
