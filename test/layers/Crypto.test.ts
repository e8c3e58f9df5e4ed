import { describe, expect, it } from "@effect/vitest"
import bcrypt from "bcryptjs"
import { Effect, Redacted } from "effect"
import * as Crypto from "../../layers/Crypto.ts"

const keyA = Redacted.make("Vh3kP9qW2mZx7Lr5Tn8Bc4Fd6Gs1Jy0E")
const keyB = Redacted.make("Nq7Zt2Wx5Km9Pr3Hv8Ld1Fs6Bj4Gc0Ya")
const crypto = Crypto.make(keyA, Crypto.testHashCost)

describe("Crypto", () => {
  it.effect("encrypts with AES-256-GCM and decrypts back; each ciphertext is fresh", () =>
    Effect.gen(function*() {
      const secret = "client-secret: ünïcödé ✓"
      const first = yield* crypto.encrypt(secret)
      const second = yield* crypto.encrypt(secret)
      expect(first).not.toContain("client-secret")
      expect(first).not.toBe(second)
      expect(yield* crypto.decrypt(first)).toBe(secret)
      expect(yield* crypto.decrypt(second)).toBe(secret)
    }))

  it.effect("refuses a tampered ciphertext", () =>
    Effect.gen(function*() {
      const sealed = yield* crypto.encrypt("do not touch")
      const [version, payload] = sealed.split(":")
      const bytes = Buffer.from(payload, "base64")
      bytes[bytes.length - 1] ^= 0x01
      const error = yield* Effect.flip(crypto.decrypt(`${version}:${bytes.toString("base64")}`))
      expect(error).toBeInstanceOf(Crypto.DecryptionError)
      expect(yield* Effect.flip(crypto.decrypt("v9:garbage"))).toBeInstanceOf(Crypto.DecryptionError)
      expect(yield* Effect.flip(crypto.decrypt("not even a format"))).toBeInstanceOf(Crypto.DecryptionError)
    }))

  it.effect("refuses a ciphertext sealed under another key", () =>
    Effect.gen(function*() {
      const sealed = yield* Crypto.make(keyB).encrypt("other key")
      expect(yield* Effect.flip(crypto.decrypt(sealed))).toBeInstanceOf(Crypto.DecryptionError)
    }))

  it.effect("hashes passwords with argon2id and verifies them", () =>
    Effect.gen(function*() {
      const hash = yield* crypto.hashPassword("correct-horse-battery")
      expect(hash).toMatch(/^\$argon2id\$/)
      expect(hash).not.toContain("correct-horse-battery")
      expect(yield* crypto.verifyPassword("correct-horse-battery", hash)).toBe(true)
      expect(yield* crypto.verifyPassword("wrong-horse-battery", hash)).toBe(false)
      expect(yield* crypto.hashPassword("correct-horse-battery")).not.toBe(hash)
    }))

  it.effect("verifies bcrypt hashes of imported accounts and rejects unknown formats", () =>
    Effect.gen(function*() {
      const imported = bcrypt.hashSync("imported-password", 4)
      expect(yield* crypto.verifyPassword("imported-password", imported)).toBe(true)
      expect(yield* crypto.verifyPassword("other-password", imported)).toBe(false)
      expect(yield* crypto.verifyPassword("imported-password", imported.replace(/^\$2[ab]\$/, "$2y$"))).toBe(true)
      expect(yield* crypto.verifyPassword("plain", "plain")).toBe(false)
      expect(yield* crypto.verifyPassword("x", "$argon2id$broken")).toBe(false)
    }))

  it("makes 26-character Mattermost ids, all different across refills of the random pool (256 ids each)", () => {
    const ids = new Set(Array.from({ length: 2000 }, Crypto.newId))
    expect(ids.size).toBe(2000)
    for (const id of ids) expect(Crypto.isId(id)).toBe(true)
  })
})
