import { HttpRouter } from "@effect/platform"
import { Effect } from "effect"
import { SettingsPatch, SettingsView } from "../../schemas/native/Push.ts"
import { authed } from "../auth/Guards.ts"
import * as Decode from "../http/Decode.ts"
import { respondWith } from "../http/Respond.ts"
import { PushSettings } from "./PushSettings.ts"

/**
 * The push section of the server configuration record, for administrators. GET never returns a private value,
 * only "set"; PUT changes the fields it names (absent or "set" keeps a value, null or "" clears it).
 */
const view = Effect.gen(function*() {
  const settings = yield* PushSettings
  return yield* respondWith(SettingsView, yield* settings.view)
})

const update = Effect.gen(function*() {
  const patch = yield* Decode.body(SettingsPatch)
  const settings = yield* PushSettings
  return yield* respondWith(SettingsView, yield* settings.update(patch))
})

export const routes = HttpRouter.empty.pipe(
  HttpRouter.get("/api/v1/admin/push", authed.admin(view)),
  HttpRouter.put("/api/v1/admin/push", authed.admin(update))
)
