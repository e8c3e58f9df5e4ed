import { HttpRouter } from "@effect/platform"
import { Effect, Schema } from "effect"
import { authed, CurrentCaller } from "../auth/Guards.ts"
import * as Decode from "../http/Decode.ts"
import { respondWith } from "../http/Respond.ts"
import { PostActionResponse } from "../../schemas/wire/Integration.ts"
import { doPostAction } from "./PostActions.ts"

/** POST /api/v4/posts/{post_id}/actions/{action_id}: a click on an interactive message's button or select. */

const ActionParams = Schema.Struct({
  post_id: Decode.Id,
  // Integrations may name their actions; Mattermost's generated ids are 26 characters.
  action_id: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(128, { message: () => "at most 128 characters" }))
})

/** Client4 sends {selected_option, cookie?}; Mattermost reads what it can of the body and ignores the rest. */
const ActionBody = Schema.Struct({
  selected_option: Schema.optionalWith(Schema.String, { default: () => "" }),
  cookie: Schema.optionalWith(Schema.String, { default: () => "" })
})

const act = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const { post_id, action_id } = yield* Decode.params(ActionParams)
  const body = yield* Decode.body(ActionBody).pipe(Effect.orElseSucceed(() => ({ selected_option: "", cookie: "" })))
  return yield* respondWith(PostActionResponse, yield* doPostAction(caller, post_id, action_id, body.selected_option, body.cookie))
})

export const routes = HttpRouter.empty.pipe(HttpRouter.post("/api/v4/posts/:post_id/actions/:action_id", authed(act)))
