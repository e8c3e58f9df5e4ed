import { Context, Effect, Layer } from "effect"
import { newId } from "../../layers/Crypto.ts"
import { storeOnce } from "./StoredOnce.ts"

/**
 * The installation's identifier: client config's DiagnosticId, which the mobile app stores as the server's identity
 * and matches against every push payload's server_id, so it must never change and must be the same on every node.
 */
export class DiagnosticId extends Context.Tag("service/DiagnosticId")<DiagnosticId, { readonly value: string }>() {}

export const SECTION = "diagnostic"

export const layer = Layer.effect(
  DiagnosticId,
  Effect.map(storeOnce(SECTION, Effect.sync(() => ({ diagnostic_id: newId() }))), (stored) => ({ value: stored.diagnostic_id }))
)
