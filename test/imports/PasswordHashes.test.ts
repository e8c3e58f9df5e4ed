import bcrypt from "bcryptjs"
import { Effect, Redacted } from "effect"
import { describe, expect, it } from "vitest"
import * as CryptoLayer from "../../layers/Crypto.ts"
import { Crypto } from "../../layers/Crypto.ts"
import { isVerifiableHash, parsePbkdf2 } from "../../layers/PasswordHashes.ts"

/**
 * Sign-in's verification of imported hashes: PBKDF2 in Mattermost v11's PHC string, checked against the published
 * PBKDF2-HMAC-SHA256 vector of RFC 7914 (P "passwd", S "salt", c 1, dkLen 64), and bcrypt.
 */
const b64 = (hex: string) => Buffer.from(hex, "hex").toString("base64").replace(/=+$/, "")
const RFC7914 = "55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc49ca9cccf179b645991664b39d77ef317c71b845b1e30bd509112041d3a19783"
const phc = `$pbkdf2$f=SHA256,w=1,l=64$${b64(Buffer.from("salt").toString("hex"))}$${b64(RFC7914)}`

const verify = (password: string, hash: string) =>
  Effect.runPromise(Effect.flatMap(Crypto, (c) => c.verifyPassword(password, hash)).pipe(
    Effect.provide(CryptoLayer.layer(Redacted.make("Qz3Wm8Xp1Lr6Tn0Vb5Hk2Jd9Fs4Gc7Ye"), CryptoLayer.testHashCost))
  ))

describe("imported password hashes", () => {
  it("verifies a PBKDF2 PHC string (RFC 7914's vector) and refuses another password", async () => {
    expect(await verify("passwd", phc)).toBe(true)
    expect(await verify("passwd!", phc)).toBe(false)
  })

  it("refuses malformed or unsupported PBKDF2 strings instead of failing", async () => {
    for (
      const bad of [
        "$pbkdf2$f=SHA512,w=1,l=64$c2FsdA$" + b64(RFC7914),
        "$pbkdf2$f=SHA256,w=0,l=64$c2FsdA$" + b64(RFC7914),
        "$pbkdf2$f=SHA256,w=1,l=32$c2FsdA$" + b64(RFC7914),
        "$pbkdf2$f=SHA256,w=99999999999,l=64$c2FsdA$" + b64(RFC7914),
        "$pbkdf2$w=1,l=64$c2FsdA$" + b64(RFC7914),
        "$pbkdf2$garbage"
      ]
    ) {
      expect(parsePbkdf2(bad), bad).toBeUndefined()
      expect(await verify("passwd", bad)).toBe(false)
    }
  })

  it("verifies bcrypt and tells which hashes sign-in can check", async () => {
    const hash = bcrypt.hashSync("old-mattermost-password", 4)
    expect(await verify("old-mattermost-password", hash)).toBe(true)
    expect(isVerifiableHash(hash)).toBe(true)
    expect(isVerifiableHash(phc)).toBe(true)
    expect(isVerifiableHash("$argon2id$v=19$m=19456,t=2,p=1$abc$def")).toBe(true)
    expect(isVerifiableHash("$6$rounds=5000$salt$hash")).toBe(false)
    expect(isVerifiableHash("plain-password")).toBe(false)
  })
})
