import { HttpRouter } from "@effect/platform"
import { Effect, Schema } from "effect"
import { Channel } from "../../schemas/wire/Channel.ts"
import { authed, CurrentCaller } from "../auth/Guards.ts"
import * as Decode from "../http/Decode.ts"
import { respondWithAll } from "../http/Respond.ts"
import * as ChannelRepo from "./ChannelRepo.ts"
import { toChannel } from "./ChannelWire.ts"

/**
 * POST /channels/group/search {term}: the caller's own group messages with a member matching every word of the
 * term (a prefix of a username, first or last name or nickname, case-insensitive), for the direct-message picker,
 * as Mattermost's SearchGroupChannels. Only groups the caller belongs to are ever searched.
 */
const SearchBody = Schema.Struct({ term: Schema.String.pipe(Schema.maxLength(256)) })

const LIMIT = 50

const search = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const { term } = yield* Decode.body(SearchBody)
  const words = term.trim().replace(/^@/, "").split(/\s+/).filter((w) => w !== "").slice(0, 8)
  if (words.length === 0) return yield* respondWithAll(Channel, [])
  const rows = yield* ChannelRepo.searchGroups(caller.userId, words, LIMIT)
  return yield* respondWithAll(Channel, rows.map(toChannel))
})

export const routes = HttpRouter.empty.pipe(HttpRouter.post("/api/v4/channels/group/search", authed(search)))
