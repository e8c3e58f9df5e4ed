import { Clock, Context, Duration, Effect, Layer, Option } from "effect"
import { OutboundHttp } from "../../layers/OutboundHttp.ts"
import { type OpenGraph, parseOpenGraph } from "./OpenGraph.ts"

/**
 * Link previews (issue 28): the OpenGraph data of a URL a user posted, fetched through OutboundHttp (the SSRF
 * guard: internal addresses refused unless SERVICE_ALLOW_INTERNAL_CONNECTIONS lists them, redirects checked too),
 * with a short timeout and a size cap, and kept per node for an hour by URL (failures and pages without OpenGraph
 * included) so that a link posted a hundred times, or a popular page, is fetched once. Concurrent asks for one URL
 * share the one fetch.
 */

export const FETCH_TIMEOUT = Duration.seconds(5)
/** Larger pages get no preview (the parser reads only their head anyway: OpenGraph.ts). */
export const FETCH_MAX_BYTES = 2 * 1024 * 1024
const CACHE_TTL_MS = Duration.toMillis(Duration.hours(1))
const CACHE_MAX = 1000
/** URLs longer than this are not fetched (Mattermost refuses link metadata for URLs over 2048 characters too). */
export const URL_MAX = 2048

/**
 * `metadata.embeds` and `metadata.images` of a post with a preview, as stored in posts.link_preview: a page's
 * OpenGraph data, or (a link to a picture itself) an embed of type "image" whose size is in `images`.
 */
export interface LinkPreview {
  readonly embeds: ReadonlyArray<
    | { readonly type: "opengraph"; readonly url: string; readonly data: OpenGraph }
    | { readonly type: "image"; readonly url: string }
  >
  readonly images: Readonly<Record<string, { readonly width: number; readonly height: number; readonly format: string; readonly frame_count: number }>>
}

export interface LinkPreviewsService {
  /** The page's OpenGraph data, or none (unreachable, refused, too large or slow, not HTML, no OpenGraph tags). */
  readonly openGraph: (url: string) => Effect.Effect<Option.Option<OpenGraph>>
}

export class LinkPreviews extends Context.Tag("service/LinkPreviews")<LinkPreviews, LinkPreviewsService>() {}

const IMAGE_FORMATS: Record<string, string> = { jpg: "jpeg", jpeg: "jpeg", png: "png", gif: "gif", webp: "webp", bmp: "bmp", svg: "svg" }

const formatOf = (type: string | undefined, url: string) => {
  const fromType = type?.match(/^image\/([a-z+]+)/i)?.[1]?.toLowerCase()
  if (fromType !== undefined) return IMAGE_FORMATS[fromType.replace("+xml", "")] ?? fromType
  const extension = (() => {
    try {
      return new URL(url).pathname.match(/\.([a-z]+)$/i)?.[1]?.toLowerCase()
    } catch {
      return undefined
    }
  })()
  return extension === undefined ? "" : IMAGE_FORMATS[extension] ?? ""
}

/**
 * The post metadata of a link's OpenGraph data. An image's dimensions are those the page declares
 * (og:image:width and og:image:height): the clients size the preview from `metadata.images`, and an image without
 * declared dimensions is left out of it (they then show it at its natural size) rather than downloaded and decoded
 * here.
 */
export const toLinkPreview = (url: string, data: OpenGraph): LinkPreview => ({
  embeds: [{ type: "opengraph", url, data }],
  images: Object.fromEntries(data.images.flatMap((image) => {
    const src = image.secure_url ?? image.url
    if (src === "" || image.width === undefined || image.height === undefined) return []
    return [[src, { width: image.width, height: image.height, format: formatOf(image.type, src), frame_count: 0 }]]
  }))
})

/** A link whose path names a picture is previewed as the picture (Mattermost's "image" embed), not as a page. */
export const isImageLink = (url: string) => {
  try {
    return /\.(png|jpe?g|gif|webp|bmp)$/i.test(new URL(url).pathname)
  } catch {
    return false
  }
}

/**
 * The first http(s) link of a message, as a reader sees it: trailing punctuation is not part of it, and neither are
 * the brackets of Markdown's `[text](url)` and `<url>`.
 */
export const firstLink = (message: string): string | undefined => {
  const found = message.match(/https?:\/\/[^\s<>()[\]"'`]+/i)?.[0]
  const link = found?.replace(/[.,;:!?*_~]+$/, "")
  return link === undefined || link.length > URL_MAX ? undefined : link
}

export const make = Effect.gen(function*() {
  const http = yield* OutboundHttp
  const cache = new Map<string, { readonly expires: number; readonly result: Effect.Effect<Option.Option<OpenGraph>> }>()

  const fetchOpenGraph = (url: string) =>
    http.request({
      url,
      headers: { accept: "text/html,application/xhtml+xml", "user-agent": "Mozilla/5.0 (compatible; TeamChat link preview)" },
      timeout: FETCH_TIMEOUT,
      maxBytes: FETCH_MAX_BYTES
    }).pipe(
      Effect.map((answer) => {
        const type = answer.headers["content-type"] ?? ""
        if (answer.status !== 200 || !/html/i.test(type)) return Option.none<OpenGraph>()
        return Option.fromNullable(parseOpenGraph(answer.body, answer.url))
      }),
      Effect.catchAll((e) => Effect.as(Effect.logDebug(`link preview of ${url.slice(0, 200)}: ${e.message}`), Option.none<OpenGraph>()))
    )

  const openGraph = (url: string) =>
    Effect.gen(function*() {
      if (url.length > URL_MAX) return Option.none<OpenGraph>()
      const now = yield* Clock.currentTimeMillis
      const known = cache.get(url)
      if (known !== undefined && known.expires > now) return yield* known.result
      const result = yield* Effect.cached(fetchOpenGraph(url))
      cache.delete(url)
      cache.set(url, { expires: now + CACHE_TTL_MS, result })
      if (cache.size > CACHE_MAX) cache.delete(cache.keys().next().value!)
      return yield* result
    })

  return { openGraph } satisfies LinkPreviewsService
})

export const layer = Layer.effect(LinkPreviews, make)
