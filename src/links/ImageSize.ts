import { Effect, Option } from "effect"
import sharp from "sharp"
import { ImageProxy } from "./ImageProxy.ts"

/**
 * An image's size for `metadata.images` (Mattermost's PostImage), when a page does not declare it
 * (og:image:width/height) or a post links to an image itself: the picture is fetched through the image proxy (the
 * guarded outbound client, and the proxy's cache the readers' browsers will hit next) and sharp reads its header.
 */
export interface ImageSize {
  readonly width: number
  readonly height: number
  readonly format: string
  readonly frame_count: number
}

export const imageSize = (url: string): Effect.Effect<Option.Option<ImageSize>, never, ImageProxy> =>
  Effect.gen(function*() {
    const found = yield* Effect.flatMap(ImageProxy, (proxy) => proxy.image(url))
    if (Option.isNone(found)) return Option.none<ImageSize>()
    const meta = yield* Effect.tryPromise(() => sharp(found.value.bytes, { animated: true }).metadata()).pipe(Effect.option)
    if (Option.isNone(meta) || !meta.value.width || !meta.value.height) return Option.none<ImageSize>()
    const { width, height, pageHeight, format, pages } = meta.value
    // An animated GIF's frames are stacked: one frame is pageHeight tall. Mattermost counts frames of GIFs only.
    return Option.some({
      width,
      height: pageHeight ?? height,
      format: String(format ?? ""),
      frame_count: format === "gif" ? pages ?? 1 : 0
    })
  })
