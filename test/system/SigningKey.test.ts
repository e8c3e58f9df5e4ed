import { Effect } from "effect"
import { importSPKI, jwtVerify } from "jose"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { DiagnosticId } from "../../src/system/DiagnosticId.ts"
import { SigningKey } from "../../src/system/SigningKey.ts"
import { storeOnce } from "../../src/system/StoredOnce.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"

let server: TestServer

beforeAll(async () => {
  server = await startServer()
})
afterAll(() => server?.close())

const pem = (base64: string) => `-----BEGIN PUBLIC KEY-----\n${base64.match(/.{1,64}/g)!.join("\n")}\n-----END PUBLIC KEY-----`

const identity = (s: TestServer) =>
  s.runtime.runPromise(Effect.gen(function*() {
    const key = yield* SigningKey
    const diagnostic = yield* DiagnosticId
    return { publicKey: key.publicKeyBase64, diagnosticId: diagnostic.value, token: yield* key.sign({ server_id: diagnostic.value }) }
  }))

describe("server signing key and diagnostic id", () => {
  it("signs ES256 JWTs that verify with the published public key", async () => {
    const { publicKey, token, diagnosticId } = await identity(server)
    expect(Buffer.from(publicKey, "base64").length).toBe(91)
    const { payload, protectedHeader } = await jwtVerify(token, await importSPKI(pem(publicKey), "ES256"))
    expect(protectedHeader.alg).toBe("ES256")
    expect(payload.server_id).toBe(diagnosticId)
    expect(diagnosticId).toMatch(/^[a-z0-9]{26}$/)
  })

  it("keeps the private key encrypted at rest", async () => {
    const db = new pg.Client({ connectionString: server.databaseUrl })
    await db.connect()
    try {
      const { rows } = await db.query("SELECT value FROM server_config WHERE section = 'signing_key'")
      expect(rows).toHaveLength(1)
      const stored = JSON.stringify(rows[0].value)
      expect(stored).not.toContain("PRIVATE KEY")
      expect(rows[0].value.private_key_encrypted).toMatch(/^v1:/)
    } finally {
      await db.end()
    }
  })

  it("keeps the same key and id across restarts and nodes sharing the database", async () => {
    const first = await identity(server)
    const second = await startServer({ databaseUrl: server.databaseUrl })
    try {
      const again = await identity(second)
      expect(again.publicKey).toBe(first.publicKey)
      expect(again.diagnosticId).toBe(first.diagnosticId)
    } finally {
      await second.close()
    }
  })

  it("replaces a key that no longer decrypts after the encryption key changed, once for all nodes", async () => {
    const before = await identity(server)
    const env = { SERVICE_ENCRYPTION_KEY: "Another-Encryption-Key-0123456789abcdef" }
    const rotated = await startServer({ databaseUrl: server.databaseUrl, env })
    try {
      const after = await identity(rotated)
      expect(after.publicKey).not.toBe(before.publicKey)
      expect(after.diagnosticId).toBe(before.diagnosticId)
      await jwtVerify(after.token, await importSPKI(pem(after.publicKey), "ES256"))
      const sibling = await startServer({ databaseUrl: server.databaseUrl, env })
      try {
        expect((await identity(sibling)).publicKey).toBe(after.publicKey)
      } finally {
        await sibling.close()
      }
    } finally {
      await rotated.close()
    }
  })

  it("lets exactly one of two racing nodes store its candidate", async () => {
    const [a, b] = await server.runtime.runPromise(
      Effect.all([
        storeOnce("race_test", Effect.succeed({ node: "a" })),
        storeOnce("race_test", Effect.succeed({ node: "b" }))
      ], { concurrency: 2 })
    )
    expect(a).toEqual(b)
  })
})
