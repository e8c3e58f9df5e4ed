import { Effect } from "effect"
import { createHash } from "node:crypto"
import { Images } from "../../layers/Images.ts"

/**
 * Profile pictures. A user without an uploaded picture gets a deterministic identicon: a 5x5 grid mirrored left to
 * right, its cells and colour taken from a hash of the user id, drawn as raw pixels (no fonts needed) and encoded
 * as PNG. Uploads are decoded, EXIF-rotated, centre-cropped to a square and re-encoded as PNG, so that what is
 * served is always a clean image of ours, never the uploaded bytes.
 */
export const AVATAR_SIZE = 128
const GRID = 5
const CELL = 20
const MARGIN = (AVATAR_SIZE - GRID * CELL) / 2
/** Mattermost's MaxImageResolution: larger uploads are refused before decoding (decompression bombs). */
export const MAX_UPLOAD_PIXELS = 33_177_600

const hsl = (h: number, s: number, l: number): [number, number, number] => {
  const a = s * Math.min(l, 1 - l)
  const f = (n: number) => {
    const k = (n + h / 30) % 12
    return Math.round(255 * (l - a * Math.max(-1, Math.min(k - 3, 9 - k, 1))))
  }
  return [f(0), f(8), f(4)]
}

/** Generated pictures depend on the user id alone; member lists ask for dozens at once, so recent ones are kept. */
const CACHE_MAX = 2000
const generated = new Map<string, Uint8Array>()

export const defaultAvatar = (userId: string): Effect.Effect<Uint8Array, never, Images> =>
  Effect.suspend(() => {
    const hit = generated.get(userId)
    if (hit !== undefined) return Effect.succeed(hit)
    return Effect.tap(renderIdenticon(userId), (png) =>
      Effect.sync(() => {
        if (generated.size >= CACHE_MAX) generated.delete(generated.keys().next().value as string)
        generated.set(userId, png)
      }))
  })

const renderIdenticon = (userId: string): Effect.Effect<Uint8Array, never, Images> =>
  Effect.gen(function*() {
    const digest = createHash("sha256").update(userId).digest()
    const color = hsl((digest[0] * 360) / 256, 0.55, 0.5)
    const pixels = Buffer.alloc(AVATAR_SIZE * AVATAR_SIZE * 3, 0xf0)
    for (let row = 0; row < GRID; row++) {
      for (let col = 0; col < Math.ceil(GRID / 2); col++) {
        if ((digest[1 + row * 3 + col] & 1) === 0) continue
        for (const c of new Set([col, GRID - 1 - col])) {
          for (let y = 0; y < CELL; y++) {
            for (let x = 0; x < CELL; x++) {
              const offset = ((MARGIN + row * CELL + y) * AVATAR_SIZE + MARGIN + c * CELL + x) * 3
              pixels[offset] = color[0]
              pixels[offset + 1] = color[1]
              pixels[offset + 2] = color[2]
            }
          }
        }
      }
    }
    // Pixels of our own making always encode: a failure is a defect.
    return yield* Effect.orDie((yield* Images).pngFromRgb(pixels, AVATAR_SIZE, AVATAR_SIZE))
  })

export type NormalizeFailure = "not_an_image" | "too_many_pixels"

/** The uploaded image as a square PNG, or why it was refused. */
/** Where an uploaded (or imported) profile image is stored. */
export const profileImageKey = (userId: string) => `users/${userId}/profile.png`

export const normalizeUpload = (bytes: Uint8Array): Effect.Effect<Uint8Array, NormalizeFailure, Images> =>
  Effect.gen(function*() {
    const images = yield* Images
    const meta = yield* Effect.mapError(images.metadata(bytes), (): NormalizeFailure => "not_an_image")
    if (meta.width * meta.height > MAX_UPLOAD_PIXELS) return yield* Effect.fail<NormalizeFailure>("too_many_pixels")
    const [png] = yield* Effect.mapError(
      images.render(bytes, MAX_UPLOAD_PIXELS, [{ resize: { width: AVATAR_SIZE * 2, height: AVATAR_SIZE * 2, fit: "cover" }, output: { format: "png" } }]),
      (): NormalizeFailure => "not_an_image"
    )
    return png
  })
