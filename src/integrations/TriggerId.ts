import { Clock, Data, Effect, Redacted } from "effect"
import { createHmac, timingSafeEqual } from "node:crypto"
import { newId } from "../../layers/Crypto.ts"
import { AppConfig } from "../Config.ts"

/**
 * Trigger ids, as Mattermost issues them with each slash command (and interactive action) request: the integration
 * hands one back to open an interactive dialog, which then opens for that user only. A trigger id is
 * base64("clientId:userId:issuedAtMs:signature"), signed with a key derived from the server's secret, and lives
 * TRIGGER_ID_LIFETIME_MS. The client learns clientId (the command's answer carries it) and matches the dialog
 * event against it.
 */

/** As Mattermost, which lets a trigger id live as long as an outgoing integration request may take. */
export const TRIGGER_ID_LIFETIME_MS = 30_000

export class TriggerIdInvalid extends Data.TaggedError("TriggerIdInvalid")<{ readonly id: string; readonly message: string }> {}

export interface IssuedTriggerId {
  /** What the integration receives (trigger_id in the command request). */
  readonly triggerId: string
  /** What the client receives (trigger_id in the command's answer, and in the open_dialog event). */
  readonly clientTriggerId: string
}

const signingKey = Effect.map(AppConfig, (config) =>
  createHmac("sha256", Redacted.value(config.jwtSecretValue)).update("service/trigger-id").digest())

const sign = (key: Buffer, payload: string) => createHmac("sha256", key).update(payload).digest("base64url")

export const issueTriggerId = (userId: string): Effect.Effect<IssuedTriggerId, never, AppConfig> =>
  Effect.gen(function*() {
    const key = yield* signingKey
    const clientTriggerId = newId()
    const payload = `${clientTriggerId}:${userId}:${yield* Clock.currentTimeMillis}`
    return { clientTriggerId, triggerId: Buffer.from(`${payload}:${sign(key, payload)}`).toString("base64") }
  })

const invalid = (id: string, message: string) => new TriggerIdInvalid({ id, message })

/** The user a trigger id was issued to and its client id, or why it is refused (forged, garbled or expired). */
export const verifyTriggerId = (triggerId: string): Effect.Effect<{ readonly clientTriggerId: string; readonly userId: string }, TriggerIdInvalid, AppConfig> =>
  Effect.gen(function*() {
    const decoded = Buffer.from(triggerId, "base64").toString("utf8")
    const parts = decoded.split(":")
    if (triggerId === "" || parts.length !== 4) {
      return yield* invalid("interactive_message.decode_trigger_id.missing_data", "Trigger ID missing required data.")
    }
    const [clientTriggerId, userId, issuedAt, signature] = parts
    const key = yield* signingKey
    const expected = Buffer.from(sign(key, `${clientTriggerId}:${userId}:${issuedAt}`))
    const given = Buffer.from(signature)
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      return yield* invalid("interactive_message.decode_trigger_id.verify_signature_failed", "Signature verification failed for the trigger ID.")
    }
    const now = yield* Clock.currentTimeMillis
    if (!(now - Number(issuedAt) <= TRIGGER_ID_LIFETIME_MS)) {
      return yield* invalid("interactive_message.decode_trigger_id.expired",
        `Trigger ID for interactive dialog is expired. Trigger IDs live for a maximum of ${TRIGGER_ID_LIFETIME_MS / 1000}s.`)
    }
    return { clientTriggerId, userId }
  })
