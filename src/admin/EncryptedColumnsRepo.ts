import type { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { JsonObject, rows } from "../../layers/Rows.ts"
import { PRIVATE_FIELDS } from "../push/PushSettings.ts"
import { SECTION as SIGNING_KEY_SECTION } from "../system/SigningKey.ts"

const Secrets = rows("EncryptedColumnsRepo providers", Schema.Struct({ id: Schema.String, client_secret_encrypted: Schema.String }))
const Sections = rows("EncryptedColumnsRepo sections", Schema.Struct({ section: Schema.String, value: JsonObject }))

/**
 * Every value stored encrypted under SERVICE_ENCRYPTION_KEY (layers/Crypto.ts), for key rotation:
 * - sso_providers.client_secret_encrypted (SsoDirectory),
 * - the private fields of server_config 'push' (PushSettings.PRIVATE_FIELDS),
 * - server_config 'signing_key'.private_key_encrypted (SigningKey).
 * A feature that encrypts a new column must add it here.
 */
export interface EncryptedValue {
  /** Where it lives, for messages: `sso_providers <id>`, `server_config push.<field>`, … */
  readonly where: string
  readonly ciphertext: string
  /** The signing key is replaced by the server when it no longer decrypts; the others would be lost. */
  readonly replaceable: boolean
}

const SIGNING_KEY_FIELD = "private_key_encrypted"
const fieldsOf = (section: string): ReadonlyArray<string> => section === "push" ? PRIVATE_FIELDS : [SIGNING_KEY_FIELD]

/**
 * Passes every encrypted value through `rewrite` under row locks and stores what it returns (undefined leaves the value
 * as it is). Run inside a transaction, so that a failure part-way leaves every value as it was.
 */
export const rewriteAll = <E, R>(
  sql: SqlClient.SqlClient,
  rewrite: (value: EncryptedValue) => Effect.Effect<string | undefined, E, R>
) =>
  Effect.gen(function*() {
    let rewritten = 0
    const providers = yield* sql`
      SELECT id, client_secret_encrypted FROM sso_providers WHERE client_secret_encrypted <> '' ORDER BY id FOR UPDATE`.pipe(Secrets)
    for (const p of providers) {
      const next = yield* rewrite({ where: `sso_providers ${p.id}`, ciphertext: p.client_secret_encrypted, replaceable: false })
      if (next === undefined) continue
      yield* sql`UPDATE sso_providers SET client_secret_encrypted = ${next} WHERE id = ${p.id}`
      rewritten++
    }
    const sections = yield* sql`
      SELECT section, value FROM server_config WHERE section IN ('push', ${SIGNING_KEY_SECTION}) ORDER BY section FOR UPDATE`.pipe(Sections)
    for (const { section, value } of sections) {
      const updated: Record<string, unknown> = { ...value }
      let changed = false
      for (const field of fieldsOf(section)) {
        const v = value[field]
        if (typeof v !== "string" || v === "") continue
        const next = yield* rewrite({ where: `server_config ${section}.${field}`, ciphertext: v, replaceable: section !== "push" })
        if (next === undefined) continue
        updated[field] = next
        changed = true
        rewritten++
      }
      if (changed) yield* sql`UPDATE server_config SET value = ${JSON.stringify(updated)}::jsonb WHERE section = ${section}`
    }
    return rewritten
  })
