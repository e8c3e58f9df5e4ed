import { pbkdf2, timingSafeEqual } from "node:crypto"

/**
 * Password hash formats of accounts imported from Mattermost that sign-in verifies besides our own argon2id:
 * bcrypt (`$2a$`, `$2b$`, `$2y$`, Mattermost before v11) and PBKDF2 in Mattermost v11's PHC string,
 * `$pbkdf2$f=SHA256,w=<iterations>,l=<key length>$<salt>$<hash>`, salt and hash in unpadded standard base64
 * (server/channels/app/password/hashers/pbkdf2.go).
 */
export const isBcrypt = (hash: string) => /^\$2[aby]\$\d\d\$[./A-Za-z0-9]{53}$/.test(hash)

export interface Pbkdf2Hash {
  readonly iterations: number
  readonly keyLength: number
  readonly salt: Buffer
  readonly hash: Buffer
}

/** Bounds that keep a stored hash from costing more than a normal sign-in (Mattermost's default is 600,000). */
const MAX_ITERATIONS = 10_000_000
const MAX_KEY_LENGTH = 256

export const parsePbkdf2 = (phc: string): Pbkdf2Hash | undefined => {
  const match = /^\$pbkdf2\$([^$]+)\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/.exec(phc)
  if (match === null) return undefined
  const params = new Map(match[1].split(",").map((p) => p.split("=", 2) as [string, string]))
  if (params.size !== 3 || params.get("f") !== "SHA256") return undefined
  const iterations = Number(params.get("w"))
  const keyLength = Number(params.get("l"))
  if (!Number.isSafeInteger(iterations) || iterations < 1 || iterations > MAX_ITERATIONS) return undefined
  if (!Number.isSafeInteger(keyLength) || keyLength < 1 || keyLength > MAX_KEY_LENGTH) return undefined
  const hash = Buffer.from(match[3], "base64")
  if (hash.length !== keyLength) return undefined
  return { iterations, keyLength, salt: Buffer.from(match[2], "base64"), hash }
}

/** Whether the password matches a PBKDF2 PHC string (false for a malformed one). */
export const verifyPbkdf2 = (password: string, phc: string): Promise<boolean> => {
  const parsed = parsePbkdf2(phc)
  if (parsed === undefined) return Promise.resolve(false)
  return new Promise((resolve) =>
    pbkdf2(password, parsed.salt, parsed.iterations, parsed.keyLength, "sha256", (error, key) =>
      resolve(error === null && timingSafeEqual(key, parsed.hash))))
}

/** A stored hash sign-in can check: argon2 (ours), bcrypt or PBKDF2 (imported). */
export const isVerifiableHash = (hash: string) => hash.startsWith("$argon2") || isBcrypt(hash) || parsePbkdf2(hash) !== undefined
