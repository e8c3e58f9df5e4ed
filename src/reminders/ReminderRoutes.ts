import { HttpRouter } from "@effect/platform"
import { Effect } from "effect"
import { SetReminder } from "../../schemas/Reminder.ts"
import { authed, CurrentCaller } from "../auth/Guards.ts"
import * as Decode from "../http/Decode.ts"
import { ok } from "../http/Respond.ts"
import { ownUserId } from "../access/UserParam.ts"
import { setReminder } from "./Reminders.ts"
import { PostParams } from "../../schemas/Params.ts"

/** POST /users/{user_id}/posts/{post_id}/reminder: only for oneself, on a post one can read. */

const set = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const userId = yield* ownUserId("this user")
  const { post_id } = yield* Decode.params(PostParams)
  const { target_time } = yield* Decode.body(SetReminder)
  yield* setReminder(caller, userId, post_id, target_time)
  return ok()
})

export const routes = HttpRouter.empty.pipe(HttpRouter.post("/api/v4/users/:user_id/posts/:post_id/reminder", authed(set)))
