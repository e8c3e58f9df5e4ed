import { Clock, Effect, Layer, Metric, Option, Queue, Runtime } from "effect"
import { DomainEvent, type EventPost, eventPost } from "../../schemas/Events.ts"
import { EventBus, type LocalEnvelope } from "../events/EventBus.ts"
import { PostRepo } from "../posts/PostRepo.ts"
import { siteSwitches } from "../system/ServerSettings.ts"
import { setLinkPreview } from "./LinkPreviewRepo.ts"
import { imageSize } from "./ImageSize.ts"
import { firstLink, isImageLink, type LinkPreview, LinkPreviews, toLinkPreview } from "./LinkPreviews.ts"

/**
 * Previews of the links users post (issue 28). POST /posts answers at once (it is benchmarked: docs/performance.md);
 * the node that created a post sees its own `posted` event and queues the post when its message has a link. A worker
 * fetches the first link's OpenGraph data (LinkPreviews: guarded, bounded, cached), stores it as the post's
 * `metadata.embeds` and `metadata.images`, and publishes `post_edited` so that clients show the preview. Mattermost
 * computes this metadata when a post is read; here it is computed once, off the request's path.
 */

export const QUEUE_SIZE = 1000
const WORKERS = 4

/**
 * Posts with a link by outcome: `previewed`, `none` (no OpenGraph data, unreachable, refused, too large or slow, or
 * the post changed meanwhile), `disabled` (EnableLinkPreviews off).
 */
const postsTotal = Metric.counter("service_link_preview_posts_total", { description: "Posts with a link, by preview outcome", incremental: true })
const counted = (outcome: "previewed" | "none" | "disabled") => Metric.increment(Metric.tagged(postsTotal, "outcome", outcome))

/** Posts whose preview was not made because the queue was full. */
const droppedTotal = Metric.counter("service_link_preview_dropped_total", { description: "Posts not previewed: queue full", incremental: true })

interface Wanted {
  readonly post: EventPost
  readonly url: string
}

/** The link a post's stored preview is of, as its wire form carries it. */
const previewedLink = (post: EventPost) => (post.metadata as { readonly embeds?: ReadonlyArray<{ readonly url?: string }> } | undefined)?.embeds?.[0]?.url

/**
 * A user's (or bot's) post with a link, unless it is a system message or its author asked for no preview; an edited
 * post again when its first link is no longer the one previewed (the post_edited this job publishes carries the
 * preview of the same link, so it is not taken again).
 */
const wantedBy = ({ domain: event }: LocalEnvelope): Wanted | undefined => {
  if (event?._tag !== "Posted" && event?._tag !== "PostEdited") return undefined
  const post = event._tag === "Posted" ? event.post : eventPost(event.post)
  if (typeof post.message !== "string" || typeof post.type !== "string" || typeof post.props !== "object" || post.props === null) return undefined
  if (post.type.startsWith("system_") || post.props.remove_link_preview === "true" || !post.message.includes("http")) return undefined
  const url = firstLink(post.message)
  if (url === undefined || (event._tag === "PostEdited" && previewedLink(post) === url)) return undefined
  return { post, url }
}

/**
 * The preview of a link: a picture's own size (an "image" embed), or the page's OpenGraph data with the size of its
 * image, measured when the page does not declare it.
 */
const previewOf = (url: string) =>
  Effect.gen(function*() {
    if (isImageLink(url)) {
      const size = yield* imageSize(url)
      return Option.map(size, (s): LinkPreview => ({ embeds: [{ type: "image", url }], images: { [url]: s } }))
    }
    const data = yield* Effect.flatMap(LinkPreviews, (previews) => previews.openGraph(url))
    if (Option.isNone(data)) return Option.none<LinkPreview>()
    const preview = toLinkPreview(url, data.value)
    const images = { ...preview.images }
    for (const image of data.value.images) {
      const src = image.secure_url ?? image.url
      if (src === "" || src in images) continue
      const size = yield* imageSize(src)
      if (Option.isSome(size)) images[src] = size.value
    }
    return Option.some<LinkPreview>({ ...preview, images })
  })

const preview = ({ post, url }: Wanted) =>
  Effect.gen(function*() {
    if (!(yield* siteSwitches).enableLinkPreviews) return yield* counted("disabled")
    const made = yield* previewOf(url)
    if (Option.isNone(made) || !(yield* setLinkPreview(post.id, url, made.value, yield* Clock.currentTimeMillis))) {
      return yield* counted("none")
    }
    yield* counted("previewed")
    const [edited] = yield* Effect.flatMap(PostRepo, (repo) =>
      repo.hydrate([post.id], { viewer: { userId: post.user_id, isSystemAdmin: false }, collapsedThreads: false, extended: false }))
    if (edited === undefined) return
    yield* Effect.flatMap(EventBus, (bus) => bus.publish(DomainEvent.PostEdited({ post: edited }), { channel_id: post.channel_id }))
  })

export const layer = Layer.scopedDiscard(
  Effect.gen(function*() {
    const bus = yield* EventBus
    const queue = yield* Queue.dropping<Wanted>(QUEUE_SIZE)
    const runFork = Runtime.runFork(yield* Effect.runtime<never>())
    // Synchronously in publish: a filter and an offer, as the other subscribers of posts (issue 10).
    yield* bus.onLocal((envelope) => {
      const wanted = wantedBy(envelope)
      if (wanted === undefined || queue.unsafeOffer(wanted)) return
      droppedTotal.unsafeUpdate(1, [])
      runFork(Effect.logWarning(`link previews: queue full (${QUEUE_SIZE}); post ${wanted.post.id} not previewed`))
    })
    const worker = Queue.take(queue).pipe(
      Effect.flatMap((wanted) => preview(wanted).pipe(Effect.catchAllCause((cause) => Effect.logWarning("link previews: a post was not previewed", cause)))),
      Effect.forever
    )
    for (let i = 0; i < WORKERS; i++) yield* Effect.forkScoped(worker)
  })
)
