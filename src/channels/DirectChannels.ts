import { Clock, Effect } from "effect"
import { newId } from "../../layers/Crypto.ts"
import { Db } from "../../layers/Db.ts"
import { DomainEvent } from "../../schemas/Events.ts"
import { rows } from "../../layers/Rows.ts"
import { ChannelRow as ChannelRowSchema } from "./ChannelRows.ts"
import { EventBus } from "../events/EventBus.ts"
import { type ChannelRow, directName, groupName } from "./ChannelWire.ts"
import * as Membership from "./Membership.ts"

const Channels = rows("DirectChannels channels", ChannelRowSchema)

/** Direct and group message channels, found or created with their members (channels' routes and the system bot). */
export const ensureDirect = (type: "D" | "G", name: string, displayName: string, creatorId: string, userIds: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const db = yield* Db
    const sql = db.sql
    const now = yield* Clock.currentTimeMillis
    return yield* db.transaction(Effect.gen(function*() {
      const inserted = yield* sql`
        INSERT INTO channels (id, create_at, update_at, team_id, type, display_name, name, creator_id)
        VALUES (${newId()}, ${now}, ${now}, '', ${type}, ${displayName}, ${name}, ${creatorId})
        ON CONFLICT (team_id, name) DO NOTHING
        RETURNING *`.pipe(Channels)
      const channel = inserted[0] ?? (yield* sql`SELECT * FROM channels WHERE team_id = '' AND name = ${name}`.pipe(Channels))[0]
      yield* Membership.add(sql, userIds.map((userId) => ({ channel, userId, admin: false })), now)
      return { channel, created: inserted.length > 0 }
    }))
  })


/** The DM between two users (one user: their own), created with direct_added the first time. */
export const openDirect = (creatorId: string, a: string, b: string) =>
  Effect.gen(function*() {
    const opened = yield* ensureDirect("D", directName(a, b), "", creatorId, [...new Set([a, b])])
    if (opened.created) {
      const teammate = a === creatorId ? b : a
      yield* (yield* EventBus).publish(DomainEvent.DirectAdded({ creatorId, teammateId: teammate }), { channel_id: opened.channel.id })
    }
    return opened.channel
  })

/** The GM of these users (sizes checked by the caller), created with group_added the first time. */
export const openGroup = (creatorId: string, users: ReadonlyArray<{ readonly id: string; readonly username: string }>) =>
  Effect.gen(function*() {
    const ids = users.map((u) => u.id)
    const displayName = users.map((u) => u.username).sort().join(", ")
    const opened = yield* ensureDirect("G", groupName(ids), displayName, creatorId, ids)
    if (opened.created) yield* (yield* EventBus).publish(DomainEvent.GroupAdded({ teammateIds: ids }), { channel_id: opened.channel.id })
    return opened.channel
  })
