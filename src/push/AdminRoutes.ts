import { HttpRouter } from "@effect/platform"
import { Effect } from "effect"
import { requireSystemAdmin } from "../auth/Authenticate.ts"
import * as Decode from "../http/Decode.ts"
import { json } from "../http/Respond.ts"
import { PushSettings, SettingsPatch } from "./PushSettings.ts"

/**
 * The push section of the server configuration record, for administrators. GET never returns a private value,
 * only "set"; PUT changes the fields it names (absent or "set" keeps a value, null or "" clears it).
 */
const view = Effect.gen(function*() {
  yield* requireSystemAdmin
  const settings = yield* PushSettings
  return json(yield* settings.view)
})

const update = Effect.gen(function*() {
  yield* requireSystemAdmin
  const patch = yield* Decode.body(SettingsPatch)
  const settings = yield* PushSettings
  return json(yield* settings.update(patch))
})

export const routes = HttpRouter.empty.pipe(
  HttpRouter.get("/api/v1/admin/push", view),
  HttpRouter.put("/api/v1/admin/push", update)
)
