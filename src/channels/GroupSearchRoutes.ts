import { HttpRouter } from "@effect/platform"
import { Effect, Schema } from "effect"
import { Db } from "../../layers/Db.ts"
import { requireCaller } from "../auth/Authenticate.ts"
import * as Decode from "../http/Decode.ts"
import { json } from "../http/Respond.ts"
import { likePrefix } from "../search/Like.ts"
import { type ChannelRow, toChannel } from "./ChannelWire.ts"

/**
 * POST /channels/group/search {term}: the caller's own group messages with a member matching every word of the
 * term (a prefix of a username, first or last name or nickname, case-insensitive), for the direct-message picker,
 * as Mattermost's SearchGroupChannels. Only groups the caller belongs to are ever searched.
 */
const SearchBody = Schema.Struct({ term: Schema.String.pipe(Schema.maxLength(256)) })

const LIMIT = 50

const search = Effect.gen(function*() {
  const caller = yield* requireCaller
  const { term } = yield* Decode.body(SearchBody)
  const words = term.trim().replace(/^@/, "").split(/\s+/).filter((w) => w !== "").slice(0, 8)
  if (words.length === 0) return json([])
  const db = yield* Db
  const sql = db.sql
  const matches = words.map((word) => sql`EXISTS (
    SELECT 1 FROM channel_members m JOIN users u ON u.id = m.user_id
    WHERE m.channel_id = c.id AND (u.username ILIKE ${likePrefix(word)} OR u.first_name ILIKE ${likePrefix(word)}
      OR u.last_name ILIKE ${likePrefix(word)} OR u.nickname ILIKE ${likePrefix(word)}))`)
  const rows = yield* db.read(sql<ChannelRow>`
    SELECT c.* FROM channel_members mine JOIN channels c ON c.id = mine.channel_id
    WHERE mine.user_id = ${caller.userId} AND c.type = 'G' AND c.delete_at = 0 AND ${sql.and(matches)}
    ORDER BY c.display_name, c.id LIMIT ${LIMIT}`)
  return json(rows.map(toChannel))
})

export const routes = HttpRouter.empty.pipe(HttpRouter.post("/api/v4/channels/group/search", search))
