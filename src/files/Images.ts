import { Effect, Option } from "effect"
import { Images, type Rendition } from "../../layers/Images.ts"

/**
 * Image renditions, as Mattermost makes them (app/file.go, imaging): the thumbnail is scaled so that it covers a
 * 120x100 box (height 100 for images wider than 6:5, width 120 otherwise) and never enlarged; the preview is at most
 * 1920 pixels wide; the mini preview is a 16x16 centre crop. All three are JPEG at quality 90, transparency flattened
 * onto white, EXIF orientation applied.
 */
export const THUMBNAIL_WIDTH = 120
export const THUMBNAIL_HEIGHT = 100
export const PREVIEW_WIDTH = 1920
const MINI_PREVIEW_SIZE = 16
const JPEG_QUALITY = 90
/** Mattermost's MaxImageResolution (7680x4320): larger images are stored but not decoded (decompression bombs). */
const MAX_PIXELS = 33_177_600

/** Extensions worth decoding; the decoder (sharp) reads all of these except bmp, which then stays a plain file as in Mattermost. */
const IMAGE_EXTENSIONS = new Set(["jpg", "jpeg", "png", "gif", "webp", "tif", "tiff", "bmp"])

export const isImageExtension = (extension: string) => IMAGE_EXTENSIONS.has(extension)

export interface Renditions {
  readonly thumbnail: Uint8Array
  readonly preview: Uint8Array
  readonly miniPreview: Uint8Array
}

export interface ImageInfo {
  readonly width: number
  readonly height: number
  /** None when the image is too large to decode safely. */
  readonly renditions: Option.Option<Renditions>
}

const thumbnailSize = (width: number, height: number) => {
  if (width <= THUMBNAIL_WIDTH && height <= THUMBNAIL_HEIGHT) return { width, height }
  return height / width < THUMBNAIL_HEIGHT / THUMBNAIL_WIDTH ? { height: THUMBNAIL_HEIGHT } : { width: THUMBNAIL_WIDTH }
}

const jpeg = (resize?: Rendition["resize"]): Rendition => ({ resize, output: { format: "jpeg", quality: JPEG_QUALITY, background: "#ffffff" } })

/** Decodes an uploaded image; None when it is not an image the decoder reads (the file is then kept as a plain file). */
export const inspect = (bytes: Uint8Array): Effect.Effect<Option.Option<ImageInfo>, never, Images> =>
  Effect.gen(function*() {
    const images = yield* Images
    const meta = yield* images.metadata(bytes)
    // Orientations 5 to 8 are rotated a quarter turn: the image people see has width and height swapped.
    const rotated = meta.orientation >= 5
    const width = rotated ? meta.height : meta.width
    const height = rotated ? meta.width : meta.height
    if (width * height > MAX_PIXELS) return Option.some<ImageInfo>({ width, height, renditions: Option.none() })
    const [thumbnail, preview, miniPreview] = yield* images.render(bytes, MAX_PIXELS, [
      jpeg({ ...thumbnailSize(width, height), withoutEnlargement: true }),
      jpeg(width > PREVIEW_WIDTH ? { width: PREVIEW_WIDTH } : undefined),
      jpeg({ width: MINI_PREVIEW_SIZE, height: MINI_PREVIEW_SIZE, fit: "cover" })
    ])
    return Option.some<ImageInfo>({ width, height, renditions: Option.some({ thumbnail, preview, miniPreview }) })
  }).pipe(
    Effect.catchAll((error) => Effect.as(Effect.logDebug("image not decodable; stored without previews", error), Option.none()))
  )

export type ImageFormat = "png" | "jpeg" | "gif"

/** The format of an image from its leading bytes: custom emoji accept PNG, JPEG and GIF only. */
export const sniffFormat = (bytes: Uint8Array): Option.Option<ImageFormat> => {
  if (bytes.length >= 8 && bytes[0] === 0x89 && bytes[1] === 0x50 && bytes[2] === 0x4e && bytes[3] === 0x47) return Option.some("png")
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return Option.some("jpeg")
  if (bytes.length >= 6 && bytes[0] === 0x47 && bytes[1] === 0x49 && bytes[2] === 0x46 && bytes[3] === 0x38) return Option.some("gif")
  return Option.none()
}
