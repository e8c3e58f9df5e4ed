import { HttpServerRequest } from "@effect/platform"
import { Effect, Stream } from "effect"
import { type Invalid, invalid, type TooLarge, tooLarge as tooLargeError } from "../../schemas/Errors.ts"
import { normalizeUpload } from "../users/Avatar.ts"
import * as MultipartReader from "./MultipartReader.ts"

/**
 * An uploaded picture (a profile image, a team icon): the multipart `image` part, read with a size cap, then checked
 * and made a square PNG (users/Avatar.ts). Each route names its Mattermost error ids by their common prefix, e.g.
 * "api.user.upload_profile_user" or "api.team.set_team_icon".
 */
export const MAX_IMAGE_BYTES = 10 * 1024 * 1024

export interface ImageErrors {
  /** Prefix of the ids `<prefix>.parse.app_error`, `.no_file.`, `.too_large.`, `.decode.`. */
  readonly prefix: string
  /** The id for a resolution beyond the pixel limit. */
  readonly tooManyPixels: string
  /** What the message says could not be done, e.g. "upload the profile image". */
  readonly what: string
}

/** Collects the `image` part, cutting the stream with a 413 as soon as it passes the limit. */
export const readImagePart = (errors: ImageErrors) =>
  Effect.gen(function*() {
    const tooLarge = () => tooLargeError(`${errors.prefix}.too_large.app_error`, `Unable to ${errors.what}: it exceeds ${MAX_IMAGE_BYTES} bytes.`)
    const parseError = () => invalid(`${errors.prefix}.parse.app_error`, "Could not parse multipart form.")
    const request = yield* HttpServerRequest.HttpServerRequest
    if (!MultipartReader.isMultipart(request)) return yield* parseError()
    const declared = Number(request.headers["content-length"] ?? "")
    if (Number.isFinite(declared) && declared > MAX_IMAGE_BYTES + 64 * 1024) return yield* tooLarge()
    // MultipartReader rather than the platform's part streams: a body without a boundary, or one cut inside a part,
    // is a 400 there, not a defect or a stream that never ends.
    let image: Uint8Array | undefined
    let chunks: Array<Uint8Array> | undefined
    let size = 0
    yield* Stream.runForEach(
      MultipartReader.events({ maxFieldSize: 10 * 1024, maxParts: 10 }).pipe(Stream.mapError(parseError)),
      (event): Effect.Effect<void, Invalid | TooLarge> => {
        switch (event._tag) {
          case "FileStart":
            chunks = event.name === "image" && image === undefined ? [] : undefined
            size = 0
            return Effect.void
          case "FileChunk":
            if (chunks === undefined) return Effect.void
            size += event.chunk.length
            if (size > MAX_IMAGE_BYTES) return Effect.fail(tooLarge())
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
    if (image === undefined || image.length === 0) {
      return yield* invalid(`${errors.prefix}.no_file.app_error`, "No file under 'image' in request.")
    }
    return image
  })

/** Reads the `image` part and answers it as a square PNG, or the 4xx saying why not. */
export const uploadedSquarePng = (errors: ImageErrors) =>
  Effect.flatMap(readImagePart(errors), (bytes) =>
    normalizeUpload(bytes).pipe(
      Effect.catchAll((reason) =>
        reason === "too_many_pixels"
          ? invalid(errors.tooManyPixels, "The image's resolution is too large.")
          : invalid(`${errors.prefix}.decode.app_error`, "The uploaded file is not a supported image."))
    ))
