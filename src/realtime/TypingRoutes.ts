import { HttpRouter } from "@effect/platform"
import { Effect, Schema } from "effect"
import { Id } from "../../schemas/Params.ts"
import { Access } from "../access/Access.ts"
import { selfOrAdminUserId } from "../access/UserParam.ts"
import { authed, CurrentCaller } from "../auth/Guards.ts"
import * as Decode from "../http/Decode.ts"
import { ok } from "../http/Respond.ts"
import { relayTyping } from "./RelayTyping.ts"

const TypingBody = Schema.Struct({
  channel_id: Id,
  /** The thread's root post, or "" for the channel itself. */
  parent_id: Schema.optionalWith(Schema.Union(Id, Schema.Literal("")), { default: () => "" })
})

/**
 * POST /users/{user_id}/typing: the socket's `user_typing` over HTTP (integrations and plugins use it), for oneself
 * or, for a system admin, anyone; the caller must be allowed to post in the channel.
 */
const typing = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const userId = yield* selfOrAdminUserId("this user")
  const input = yield* Decode.body(TypingBody)
  yield* (yield* Access).channel(caller, input.channel_id, "write")
  yield* relayTyping(userId, input.channel_id, input.parent_id)
  return ok()
})

export const routes = HttpRouter.empty.pipe(HttpRouter.post("/api/v4/users/:user_id/typing", authed(typing)))
