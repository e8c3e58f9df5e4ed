import { Clock, Context, Duration, Effect, Layer, Option } from "effect"
import { OutboundHttp } from "../../layers/OutboundHttp.ts"
import { URL_MAX } from "./LinkPreviews.ts"

/**
 * The image proxy (GET /api/v4/image, as Mattermost's local image proxy): pictures that integrations and linked pages
 * name (attachment images and icons, link preview images, webhook icons) are fetched by the server through
 * OutboundHttp (the SSRF guard, a timeout, a size cap) and served from our origin. A reader's browser never contacts
 * whoever posted the link (it would learn their address and when they read), and the web client's CSP keeps images
 * to its own origin. Only raster images are served, recognised by their first bytes whatever the remote server
 * calls them (SVG can carry script); small ones are kept per node for an hour.
 */

export const FETCH_TIMEOUT = Duration.seconds(10)
export const MAX_BYTES = 10 * 1024 * 1024
const CACHE_TTL_MS = Duration.toMillis(Duration.hours(1))
/** Pictures up to this size are cached (icons, thumbnails, most previews): at most CACHE_MAX of them, about 25 MiB. */
const CACHE_ITEM_MAX = 256 * 1024
const CACHE_MAX = 100

export interface ProxiedImage {
  readonly contentType: string
  readonly bytes: Uint8Array
}

export interface ImageProxyService {
  /** The picture at `url`, or none (unreachable, refused, too large or slow, not a raster image). */
  readonly image: (url: string) => Effect.Effect<Option.Option<ProxiedImage>>
}

export class ImageProxy extends Context.Tag("service/ImageProxy")<ImageProxy, ImageProxyService>() {}

const startsWith = (bytes: Uint8Array, signature: ReadonlyArray<number>, at = 0) => signature.every((b, i) => bytes[at + i] === b)
const ascii = (text: string) => [...text].map((c) => c.charCodeAt(0))

/** The image type of these bytes by their signature, or undefined when they are no raster image we serve. */
export const sniffImage = (bytes: Uint8Array): string | undefined => {
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return "image/png"
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return "image/jpeg"
  if (startsWith(bytes, ascii("GIF87a")) || startsWith(bytes, ascii("GIF89a"))) return "image/gif"
  if (startsWith(bytes, ascii("RIFF")) && startsWith(bytes, ascii("WEBP"), 8)) return "image/webp"
  if (startsWith(bytes, ascii("BM"))) return "image/bmp"
  if (startsWith(bytes, [0x00, 0x00, 0x01, 0x00])) return "image/x-icon"
  if (startsWith(bytes, ascii("ftypavif"), 4)) return "image/avif"
  return undefined
}

export const make = Effect.gen(function*() {
  const http = yield* OutboundHttp
  const cache = new Map<string, { readonly expires: number; readonly result: Effect.Effect<Option.Option<ProxiedImage>> }>()

  const fetchImage = (url: string) =>
    http.request({ url, headers: { accept: "image/*" }, timeout: FETCH_TIMEOUT, maxBytes: MAX_BYTES, encoding: "latin1" }).pipe(
      Effect.map((answer) => {
        if (answer.status !== 200) return Option.none<ProxiedImage>()
        const bytes = new Uint8Array(Buffer.from(answer.body, "latin1"))
        const contentType = sniffImage(bytes)
        return contentType === undefined ? Option.none<ProxiedImage>() : Option.some({ contentType, bytes })
      }),
      Effect.catchAll((e) => Effect.as(Effect.logDebug(`image proxy, ${url.slice(0, 200)}: ${e.message}`), Option.none<ProxiedImage>()))
    )

  const image = (url: string) =>
    Effect.gen(function*() {
      if (url.length > URL_MAX) return Option.none<ProxiedImage>()
      const now = yield* Clock.currentTimeMillis
      const known = cache.get(url)
      if (known !== undefined && known.expires > now) return yield* known.result
      // Concurrent asks for one picture share the one fetch; only small answers stay once it is done.
      const result = yield* Effect.cached(fetchImage(url))
      cache.set(url, { expires: now + CACHE_TTL_MS, result })
      const answer = yield* result
      if (Option.isSome(answer) && answer.value.bytes.length > CACHE_ITEM_MAX) cache.delete(url)
      while (cache.size > CACHE_MAX) cache.delete(cache.keys().next().value!)
      return answer
    })

  return { image } satisfies ImageProxyService
})

export const layer = Layer.effect(ImageProxy, make)
