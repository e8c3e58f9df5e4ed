import { HttpRouter, HttpServerResponse } from "@effect/platform"
import { Clock, Effect, Option } from "effect"
import { FileStore } from "../../layers/FileStore.ts"
import type { Caller } from "../auth/Authenticate.ts"
import { authed, CurrentCaller } from "../auth/Guards.ts"
import { uploadedSquarePng } from "../files/ImageUpload.ts"
import { notFound, permissionDenied } from "../http/ApiError.ts"
import { ok } from "../http/Respond.ts"
import { defaultAvatar, profileImageKey } from "./Avatar.ts"
import { publishUserUpdated } from "./UserEvents.ts"
import { UserDirectory } from "./UserDirectory.ts"
import { UserRepo } from "./UserRepo.ts"
import { selfOrAdminUserId, targetUserId } from "../access/UserParam.ts"

/**
 * GET /users/{id}/image (the uploaded picture, else the generated one), /image/default, POST (multipart `image`)
 * and DELETE (back to the default). last_picture_update > 0 means an upload exists; resetting stores minus the
 * time, as Mattermost does, so clients still see the value change and refetch. Uploads are read and checked by
 * files/ImageUpload.ts (at most 10 MiB).
 */
const imageKey = profileImageKey

const png = (bytes: Uint8Array, cacheControl: string) =>
  HttpServerResponse.uint8Array(bytes, { contentType: "image/png", headers: { "cache-control": cacheControl } })

const userNotFound = () => notFound("app.user.missing_account.const", "Unable to find the user.")

/** Pictures follow user visibility: anyone who can see the user can see their picture. */
const visibleUser = (caller: Caller, userId: string) =>
  Effect.gen(function*() {
    const directory = yield* UserDirectory
    const found = yield* directory.find(caller, { id: userId })
    if (Option.isNone(found)) return yield* userNotFound()
    if (!found.value.visible) return yield* permissionDenied("this user")
    return found.value.row
  })

const getImage = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const userId = yield* targetUserId
  const user = yield* visibleUser(caller, userId)
  if (Number(user.last_picture_update) > 0) {
    const store = yield* FileStore
    const stored = yield* store.get(imageKey(userId)).pipe(Effect.option)
    if (Option.isSome(stored)) return png(stored.value, "private, max-age=86400")
  }
  return png(yield* defaultAvatar(userId), "private, max-age=86400")
})

const getDefaultImage = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const userId = yield* targetUserId
  yield* visibleUser(caller, userId)
  return png(yield* defaultAvatar(userId), "private, max-age=86400")
})

const imageErrors = {
  prefix: "api.user.upload_profile_user",
  tooManyPixels: "api.user.upload_profile_user.too_large_resolution.app_error",
  what: "upload the profile image"
}

const uploadImage = Effect.gen(function*() {
  const userId = yield* selfOrAdminUserId("this user")
  const repo = yield* UserRepo
  if (Option.isNone(yield* repo.findById(userId))) return yield* userNotFound()
  const normalized = yield* uploadedSquarePng(imageErrors)
  const store = yield* FileStore
  yield* store.put(imageKey(userId), normalized)
  const now = yield* Clock.currentTimeMillis
  const updated = yield* repo.setPictureUpdate(userId, now, now)
  if (Option.isSome(updated)) yield* publishUserUpdated(updated.value)
  return ok()
})

const resetImage = Effect.gen(function*() {
  const userId = yield* selfOrAdminUserId("this user")
  const repo = yield* UserRepo
  const now = yield* Clock.currentTimeMillis
  const updated = yield* repo.setPictureUpdate(userId, -now, now)
  if (Option.isNone(updated)) return yield* userNotFound()
  yield* (yield* FileStore).delete(imageKey(userId))
  yield* publishUserUpdated(updated.value)
  return ok()
})

export const routes = HttpRouter.empty.pipe(
  HttpRouter.get("/api/v4/users/:user_id/image", authed(getImage)),
  HttpRouter.get("/api/v4/users/:user_id/image/default", authed(getDefaultImage)),
  HttpRouter.post("/api/v4/users/:user_id/image", authed(uploadImage)),
  HttpRouter.del("/api/v4/users/:user_id/image", authed(resetImage))
)
