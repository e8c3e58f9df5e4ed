import { Effect } from "effect"
import { EventBus } from "../events/EventBus.ts"
import type { UserRow } from "./UserRow.ts"
import { toWire } from "./UserWire.ts"

/**
 * user_updated goes to every socket with the user object itself (not a JSON string), sanitized as anyone but the
 * user and admins would see it: no email, notify props or auth data.
 */
export const publishUserUpdated = (row: UserRow) =>
  Effect.flatMap(EventBus, (bus) =>
    bus.publish("user_updated", { user: toWire(row, { userId: "", isSystemAdmin: false }) }, { broadcast_to_all: true }))
