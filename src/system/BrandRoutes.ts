import { HttpRouter, HttpServerResponse } from "@effect/platform"
import { Effect, Option } from "effect"
import { FileStore } from "../../layers/FileStore.ts"
import { Images } from "../../layers/Images.ts"
import { invalid, notFound } from "../../schemas/Errors.ts"
import { authed, publicRoute } from "../auth/Guards.ts"
import { readImagePart } from "../files/ImageUpload.ts"
import { ok, okCreated } from "../http/Respond.ts"
import { MAX_UPLOAD_PIXELS } from "../users/Avatar.ts"

/**
 * The custom brand image of the login page (System Console > Site Configuration > Customization; shown when
 * TeamSettings.EnableCustomBrand is on), as Mattermost's api4/brand.go: anyone may read it, system admins upload it
 * (multipart `image`, at most 10 MB and 33 megapixels, stored as PNG like Mattermost's brand/image.png) and remove it.
 * Mattermost answers a missing image with an empty 404; this server sends the error body its app layer builds, so
 * every /api/v4 error is the usual JSON.
 */
const KEY = "brand/image.png"

const imageErrors = {
  prefix: "api.admin.upload_brand_image",
  tooManyPixels: "api.admin.upload_brand_image.check_image_limits.app_error",
  what: "upload the brand image"
}

const noImage = () => notFound("api.admin.get_brand_image.not_found.app_error", "Unable to get brand image.")

const getImage = Effect.gen(function*() {
  const stored = yield* (yield* FileStore).get(KEY).pipe(Effect.option)
  if (Option.isNone(stored)) return yield* noImage()
  return HttpServerResponse.uint8Array(stored.value, { contentType: "image/png" })
})

/** The upload decoded and re-encoded as PNG: whatever is stored is an image the login page can show. */
const uploadedPng = Effect.gen(function*() {
  const bytes = yield* readImagePart(imageErrors)
  const images = yield* Images
  const undecodable = () => invalid("brand.save_brand_image.decode.app_error", "Unable to decode the brand image: it is not a supported image.")
  const meta = yield* images.metadata(bytes).pipe(Effect.mapError(undecodable))
  if (meta.width * meta.height > MAX_UPLOAD_PIXELS) return yield* invalid(imageErrors.tooManyPixels, "The brand image's resolution is too large.")
  const [png] = yield* images.render(bytes, MAX_UPLOAD_PIXELS, [{ output: { format: "png" } }]).pipe(Effect.mapError(undecodable))
  return png
})

const uploadImage = Effect.gen(function*() {
  const png = yield* uploadedPng
  yield* (yield* FileStore).put(KEY, png)
  return okCreated()
})

const deleteImage = Effect.gen(function*() {
  const store = yield* FileStore
  if (!(yield* store.exists(KEY))) {
    return yield* notFound("api.admin.delete_brand_image.storage.not_found", "Unable to delete brand image, not found.")
  }
  yield* store.delete(KEY)
  return ok()
})

export const routes = HttpRouter.empty.pipe(
  HttpRouter.get("/api/v4/brand/image", publicRoute(getImage)),
  HttpRouter.post("/api/v4/brand/image", authed.admin(uploadImage)),
  HttpRouter.del("/api/v4/brand/image", authed.admin(deleteImage))
)
