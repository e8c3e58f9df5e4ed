import { Clock, Effect } from "effect"
import { newId } from "../../layers/Crypto.ts"
import { Db } from "../../layers/Db.ts"
import type { ChannelRow } from "./ChannelWire.ts"
import * as Membership from "./Membership.ts"

/** Direct and group message channels, found or created with their members (channels' routes and the system bot). */
export const ensureDirect = (type: "D" | "G", name: string, displayName: string, creatorId: string, userIds: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const db = yield* Db
    const sql = db.sql
    const now = yield* Clock.currentTimeMillis
    return yield* db.transaction(Effect.gen(function*() {
      const inserted = yield* sql<ChannelRow>`
        INSERT INTO channels (id, create_at, update_at, team_id, type, display_name, name, creator_id)
        VALUES (${newId()}, ${now}, ${now}, '', ${type}, ${displayName}, ${name}, ${creatorId})
        ON CONFLICT (team_id, name) DO NOTHING
        RETURNING *`
      const channel = inserted[0] ?? (yield* sql<ChannelRow>`SELECT * FROM channels WHERE team_id = '' AND name = ${name}`)[0]
      yield* Membership.add(sql, userIds.map((userId) => ({ channel, userId, admin: false })), now)
      return { channel, created: inserted.length > 0 }
    }))
  })

