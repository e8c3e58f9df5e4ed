import { Effect, Schema } from "effect"
import { Db } from "../../layers/Db.ts"
import { DomainEvent } from "../../schemas/Events.ts"
import { rows } from "../../layers/Rows.ts"
import { EventBus } from "../events/EventBus.ts"
import type { UserRow } from "./UserRow.ts"
import { toWire } from "./UserWire.ts"

const Scopes = rows("UserEvents scopes", Schema.Struct({ team_id: Schema.NullOr(Schema.String), channel_id: Schema.NullOr(Schema.String) }))

/**
 * user_updated carries the user object itself (not a JSON string). The user's own sockets get their full profile;
 * everyone who may see the user (UserDirectory's rule: a shared team or channel) gets it sanitized (no email,
 * notify props or auth data), scoped to each of the user's teams and direct or group channels rather than to every
 * socket, so that users who cannot see each other do not learn about each other. A recipient in several of those
 * scopes gets the same event more than once, which clients apply idempotently.
 */
export const publishUserUpdated = (row: UserRow) =>
  Effect.gen(function*() {
    const bus = yield* EventBus
    const db = yield* Db
    yield* bus.publish(DomainEvent.UserUpdated({ user: toWire(row, "self") }), { user_id: row.id })
    const scopes = yield* db.read(db.sql`
      SELECT team_id, NULL AS channel_id FROM team_members WHERE user_id = ${row.id} AND delete_at = 0
      UNION ALL
      SELECT NULL, c.id FROM channel_members cm JOIN channels c ON c.id = cm.channel_id AND c.type IN ('D', 'G')
      WHERE cm.user_id = ${row.id}`.pipe(Scopes)).pipe(
      Effect.catchAll((error) => Effect.as(Effect.logError("user_updated scopes unreadable", error), []))
    )
    const event = DomainEvent.UserUpdated({ user: toWire(row, { userId: "", isSystemAdmin: false }) })
    const omit_users = { [row.id]: true }
    yield* Effect.forEach(scopes, (scope) =>
      bus.publish(event, scope.team_id !== null ? { team_id: scope.team_id, omit_users } : { channel_id: scope.channel_id ?? "", omit_users }),
      { discard: true })
  })
