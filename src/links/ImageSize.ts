import { Effect, Option } from "effect"
import { Images } from "../../layers/Images.ts"
import { ImageProxy } from "./ImageProxy.ts"

/**
 * An image's size for `metadata.images` (Mattermost's PostImage), when a page does not declare it
 * (og:image:width/height) or a post links to an image itself: the picture is fetched through the image proxy (the
 * guarded outbound client, and the proxy's cache the readers' browsers will hit next) and the image decoder reads its
 * header.
 */
export interface ImageSize {
  readonly width: number
  readonly height: number
  readonly format: string
  readonly frame_count: number
}

export const imageSize = (url: string): Effect.Effect<Option.Option<ImageSize>, never, ImageProxy | Images> =>
  Effect.gen(function*() {
    const found = yield* Effect.flatMap(ImageProxy, (proxy) => proxy.image(url))
    if (Option.isNone(found)) return Option.none<ImageSize>()
    const meta = yield* Effect.flatMap(Images, (images) => images.metadata(found.value.bytes)).pipe(Effect.option)
    if (Option.isNone(meta)) return Option.none<ImageSize>()
    const { width, height, format, frames } = meta.value
    // Mattermost counts frames of GIFs only.
    return Option.some({ width, height, format, frame_count: format === "gif" ? frames : 0 })
  })
