import { Context, Data, Effect, Layer } from "effect"
import sharp from "sharp"

/**
 * Decoding and encoding images (sharp, libvips). The features decide sizes and formats (files/Images.ts for upload
 * previews, users/Avatar.ts for profile pictures); this layer only runs the pipeline they describe, so that nothing
 * above it imports sharp and a test can provide another implementation.
 */
export class ImageError extends Data.TaggedError("ImageError")<{ readonly reason: string }> {
  override get message() {
    return `image not decodable: ${this.reason}`
  }
}

export interface ImageMetadata {
  readonly width: number
  readonly height: number
  /** EXIF orientation, 1 to 8 (1 when absent). */
  readonly orientation: number
  /** The decoder's name of the format ("png", "jpeg", "gif", ...), "" when it gives none. */
  readonly format: string
  /** Frames of an animated image (1 for a still one); `height` above is one frame's. */
  readonly frames: number
}

export interface Resize {
  readonly width?: number
  readonly height?: number
  /** "cover" crops around the centre to fill both dimensions; by default the image fits inside them. */
  readonly fit?: "cover"
  readonly withoutEnlargement?: boolean
}

/** One output of a decoded image: EXIF orientation applied, then resized, then encoded. */
export interface Rendition {
  readonly resize?: Resize
  /** JPEG has no transparency: it is flattened onto `background` (a CSS colour). */
  readonly output: { readonly format: "jpeg"; readonly quality: number; readonly background: string } | { readonly format: "png" }
}

export interface ImagesService {
  /** Size and orientation from the header; fails when the bytes are not an image the decoder reads. */
  readonly metadata: (bytes: Uint8Array) => Effect.Effect<ImageMetadata, ImageError>
  /** Each rendition of the image, in order; images of more than `maxPixels` are refused before decoding. */
  readonly render: (bytes: Uint8Array, maxPixels: number, renditions: ReadonlyArray<Rendition>) => Effect.Effect<ReadonlyArray<Uint8Array>, ImageError>
  /** Raw 8-bit RGB pixels, row by row, as a PNG. */
  readonly pngFromRgb: (pixels: Uint8Array, width: number, height: number) => Effect.Effect<Uint8Array, ImageError>
}

export class Images extends Context.Tag("capability/Images")<Images, ImagesService>() {}

const failure = (e: unknown) => new ImageError({ reason: e instanceof Error ? e.message : String(e) })

const run = <A>(f: () => Promise<A>) => Effect.tryPromise({ try: f, catch: failure })

const renderOne = (bytes: Uint8Array, maxPixels: number, rendition: Rendition) => {
  let pipeline = sharp(bytes, { limitInputPixels: maxPixels }).rotate()
  const r = rendition.resize
  if (r !== undefined) {
    pipeline = pipeline.resize({
      width: r.width,
      height: r.height,
      withoutEnlargement: r.withoutEnlargement,
      ...(r.fit === "cover" ? { fit: "cover", position: "centre" } : {})
    })
  }
  const output = rendition.output
  const encoded = output.format === "jpeg"
    ? pipeline.flatten({ background: output.background }).jpeg({ quality: output.quality })
    : pipeline.png()
  return encoded.toBuffer().then((b) => new Uint8Array(b))
}

export const sharpImages: ImagesService = {
  metadata: (bytes) =>
    Effect.flatMap(run(() => sharp(bytes).metadata()), (meta) =>
      meta.width === undefined || meta.height === undefined
        ? Effect.fail(new ImageError({ reason: "no dimensions" }))
        : Effect.succeed({
          width: meta.width,
          // An animated image's frames are stacked: one frame is pageHeight tall.
          height: meta.pageHeight ?? meta.height,
          orientation: meta.orientation ?? 1,
          format: String(meta.format ?? ""),
          frames: meta.pages ?? 1
        })),
  render: (bytes, maxPixels, renditions) => run(() => Promise.all(renditions.map((r) => renderOne(bytes, maxPixels, r)))),
  pngFromRgb: (pixels, width, height) =>
    run(() => sharp(pixels, { raw: { width, height, channels: 3 } }).png().toBuffer().then((b) => new Uint8Array(b)))
}

/** sharp, the live implementation. */
export const layer: Layer.Layer<Images> = Layer.succeed(Images, sharpImages)
