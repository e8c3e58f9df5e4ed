import { HttpRouter, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Clock, Effect, Option, Stream } from "effect"
import { FileStore } from "../../layers/FileStore.ts"
import { type Caller, requireCaller } from "../auth/Authenticate.ts"
import * as MultipartReader from "../files/MultipartReader.ts"
import { type ApiError, badRequest, notFound, payloadTooLarge, permissionDenied } from "../http/ApiError.ts"
import { ok } from "../http/Respond.ts"
import { defaultAvatar, normalizeUpload, profileImageKey } from "./Avatar.ts"
import { publishUserUpdated } from "./UserEvents.ts"
import { UserDirectory } from "./UserDirectory.ts"
import { UserRepo } from "./UserRepo.ts"
import { requireSelfOrAdmin, targetUserId } from "./UserParam.ts"

/**
 * GET /users/{id}/image (the uploaded picture, else the generated one), /image/default, POST (multipart `image`)
 * and DELETE (back to the default). last_picture_update > 0 means an upload exists; resetting stores minus the
 * time, as Mattermost does, so clients still see the value change and refetch.
 */
export const MAX_PROFILE_IMAGE_BYTES = 10 * 1024 * 1024

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
  const caller = yield* requireCaller
  const userId = yield* targetUserId(caller)
  const user = yield* visibleUser(caller, userId)
  if (Number(user.last_picture_update) > 0) {
    const store = yield* FileStore
    const stored = yield* store.get(imageKey(userId)).pipe(Effect.option)
    if (Option.isSome(stored)) return png(stored.value, "private, max-age=86400")
  }
  return png(yield* defaultAvatar(userId), "private, max-age=86400")
})

const getDefaultImage = Effect.gen(function*() {
  const caller = yield* requireCaller
  const userId = yield* targetUserId(caller)
  yield* visibleUser(caller, userId)
  return png(yield* defaultAvatar(userId), "private, max-age=86400")
})

const tooLarge = () =>
  payloadTooLarge("api.user.upload_profile_user.too_large.app_error", `Unable to upload the profile image: it exceeds ${MAX_PROFILE_IMAGE_BYTES} bytes.`)
const noImage = () => badRequest("api.user.upload_profile_user.no_file.app_error", "No file under 'image' in request.")

/** Collects the `image` part, cutting the stream with a 413 as soon as it passes the limit. */
const readImagePart = Effect.gen(function*() {
  const request = yield* HttpServerRequest.HttpServerRequest
  if (!MultipartReader.isMultipart(request)) {
    return yield* badRequest("api.user.upload_profile_user.parse.app_error", "Could not parse multipart form.")
  }
  const declared = Number(request.headers["content-length"] ?? "")
  if (Number.isFinite(declared) && declared > MAX_PROFILE_IMAGE_BYTES + 64 * 1024) return yield* tooLarge()
  // MultipartReader rather than the platform's part streams: a body without a boundary, or one cut inside a part,
  // is a 400 there, not a defect or a stream that never ends.
  let image: Uint8Array | undefined
  let chunks: Array<Uint8Array> | undefined
  let size = 0
  const parseError = () => badRequest("api.user.upload_profile_user.parse.app_error", "Could not parse multipart form.")
  yield* Stream.runForEach(
    MultipartReader.events({ maxFieldSize: 10 * 1024, maxParts: 10 }).pipe(Stream.mapError(parseError)),
    (event): Effect.Effect<void, ApiError> => {
      switch (event._tag) {
        case "FileStart":
          chunks = event.name === "image" && image === undefined ? [] : undefined
          size = 0
          return Effect.void
        case "FileChunk":
          if (chunks === undefined) return Effect.void
          size += event.chunk.length
          if (size > MAX_PROFILE_IMAGE_BYTES) return Effect.fail(tooLarge())
          chunks.push(event.chunk)
          return Effect.void
        case "FileEnd":
          if (chunks !== undefined) image = Buffer.concat(chunks)
          chunks = undefined
          return Effect.void
        default:
          return Effect.void
      }
    }
  )
  if (image === undefined || image.length === 0) return yield* noImage()
  return image
})

const uploadImage = Effect.gen(function*() {
  const caller = yield* requireCaller
  const userId = yield* targetUserId(caller)
  yield* requireSelfOrAdmin(caller, userId)
  const repo = yield* UserRepo
  if (Option.isNone(yield* repo.findById(userId))) return yield* userNotFound()
  const bytes = yield* readImagePart
  const normalized = yield* normalizeUpload(bytes).pipe(
    Effect.catchAll((reason) =>
      reason === "too_many_pixels"
        ? badRequest("api.user.upload_profile_user.too_large_resolution.app_error", "The image's resolution is too large.")
        : badRequest("api.user.upload_profile_user.decode.app_error", "The uploaded file is not a supported image."))
  )
  const store = yield* FileStore
  yield* store.put(imageKey(userId), normalized)
  const now = yield* Clock.currentTimeMillis
  const updated = yield* repo.setPictureUpdate(userId, now, now)
  if (Option.isSome(updated)) yield* publishUserUpdated(updated.value)
  return ok()
})

const resetImage = Effect.gen(function*() {
  const caller = yield* requireCaller
  const userId = yield* targetUserId(caller)
  yield* requireSelfOrAdmin(caller, userId)
  const repo = yield* UserRepo
  const now = yield* Clock.currentTimeMillis
  const updated = yield* repo.setPictureUpdate(userId, -now, now)
  if (Option.isNone(updated)) return yield* userNotFound()
  yield* (yield* FileStore).delete(imageKey(userId))
  yield* publishUserUpdated(updated.value)
  return ok()
})

export const routes = HttpRouter.empty.pipe(
  HttpRouter.get("/api/v4/users/:user_id/image", getImage),
  HttpRouter.get("/api/v4/users/:user_id/image/default", getDefaultImage),
  HttpRouter.post("/api/v4/users/:user_id/image", uploadImage),
  HttpRouter.del("/api/v4/users/:user_id/image", resetImage)
)
