import { HttpRouter } from "@effect/platform"
import { Effect, Schema } from "effect"
import { DomainEvent } from "../../schemas/Events.ts"
import { Preference } from "../../schemas/wire/Preference.ts"
import { ownUserId } from "../access/UserParam.ts"
import { authed } from "../auth/Guards.ts"
import { EventBus } from "../events/EventBus.ts"
import { badRequest, notFound, permissionDenied } from "../http/ApiError.ts"
import * as Decode from "../http/Decode.ts"
import { ok, respondWith, respondWithAll } from "../http/Respond.ts"
import { PreferenceRepo } from "./PreferenceRepo.ts"
import { ListOf, MaxItems } from "../../schemas/Limits.ts"

/**
 * Preferences (display_settings, teams_order, direct_channel_show, group_channel_show, channel_open_time,
 * flagged_post, theme, and any other category a client uses): each user reads and writes only their own. Writes
 * publish preferences_changed / preferences_deleted to the user's sockets with the list as a JSON string.
 */
const CATEGORY_MAX = 32
const NAME_MAX = 32
const VALUE_MAX = 2000

const PreferenceBody = Schema.Struct({
  user_id: Schema.String,
  category: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(CATEGORY_MAX)),
  name: Schema.String.pipe(Schema.maxLength(NAME_MAX)),
  value: Schema.optionalWith(Schema.String.pipe(Schema.maxLength(VALUE_MAX)), { default: () => "" })
})
const PreferencesBody = ListOf(PreferenceBody, MaxItems.preferences)

const CategoryParams = Schema.Struct({ category: Schema.String })
const PreferenceParams = Schema.Struct({ category: Schema.String, preference_name: Schema.String })

/** The `{user_id}` of the path ("me" allowed); only the caller themself. */
const ownUser = ownUserId("this user's preferences")

/** A batch for this user, duplicates collapsed (the last one wins, as an upsert would). */
const batchFor = (userId: string) =>
  Effect.gen(function*() {
    const items = yield* Decode.body(PreferencesBody)
    if (items.length === 0) {
      return yield* badRequest("api.context.invalid_body_param.app_error", `Expected between 1 and ${MaxItems.preferences} preferences.`)
    }
    if (items.some((p) => p.user_id !== userId)) return yield* permissionDenied("another user's preferences")
    const unique = new Map<string, Preference>()
    for (const p of items) unique.set(JSON.stringify([p.category, p.name]), p)
    return [...unique.values()]
  })

const getAll = Effect.gen(function*() {
  const userId = yield* ownUser
  return yield* respondWithAll(Preference, yield* (yield* PreferenceRepo).list(userId))
})

const getCategory = Effect.gen(function*() {
  const userId = yield* ownUser
  const { category } = yield* Decode.params(CategoryParams)
  return yield* respondWithAll(Preference, yield* (yield* PreferenceRepo).list(userId, category))
})

const getOne = Effect.gen(function*() {
  const userId = yield* ownUser
  const { category, preference_name } = yield* Decode.params(PreferenceParams)
  const [found] = yield* (yield* PreferenceRepo).list(userId, category, preference_name)
  return found === undefined ? yield* notFound("app.preference.get.app_error", "Unable to find the preference.") : yield* respondWith(Preference, found)
})

const save = Effect.gen(function*() {
  const userId = yield* ownUser
  const preferences = yield* batchFor(userId)
  yield* (yield* PreferenceRepo).upsert(preferences)
  yield* (yield* EventBus).publish(DomainEvent.PreferencesChanged({ preferences }), { user_id: userId })
  return ok()
})

const remove = Effect.gen(function*() {
  const userId = yield* ownUser
  const preferences = yield* batchFor(userId)
  yield* (yield* PreferenceRepo).remove(userId, preferences)
  yield* (yield* EventBus).publish(DomainEvent.PreferencesDeleted({ preferences }), { user_id: userId })
  return ok()
})

export const routes = HttpRouter.empty.pipe(
  HttpRouter.get("/api/v4/users/:user_id/preferences", authed(getAll)),
  HttpRouter.put("/api/v4/users/:user_id/preferences", authed(save)),
  HttpRouter.post("/api/v4/users/:user_id/preferences/delete", authed(remove)),
  HttpRouter.get("/api/v4/users/:user_id/preferences/:category", authed(getCategory)),
  HttpRouter.get("/api/v4/users/:user_id/preferences/:category/name/:preference_name", authed(getOne))
)
