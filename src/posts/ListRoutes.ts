import { HttpRouter } from "@effect/platform"
import { Effect, identity, Option, Schema } from "effect"
import { beforeSend } from "../../layers/Db.ts"
import { pageCacheCounts } from "../../layers/Metrics.ts"
import { Access, type AccessService } from "../access/Access.ts"
import type { Caller } from "../auth/Authenticate.ts"
import { authed, CurrentCaller } from "../auth/Guards.ts"
import { badRequest, forbidden, notFound } from "../http/ApiError.ts"
import * as Decode from "../http/Decode.ts"
import { json, JsonText } from "../http/Respond.ts"
import { OwnUserParam, ownUser } from "./OwnUser.ts"
import { followingPage, followingText, leadingPage, listText, type LeadingPage, PageCache, type PageCacheService } from "./PageCache.ts"
import { PostRepo, type WindowQuery } from "./PostRepo.ts"
import { postList } from "./PostWire.ts"

// Post lists are answered through `postList`, the precompiled encoder of schemas/wire/PostList.ts (its output is
// checked against the Schema in test/compat/WireMappers.test.ts): encoding a 60-post list with Schema.encode cost
// about 0.5 ms of CPU more (issue 13's measurement), on routes clients call on every reconnect and scroll.

/**
 * Post lists: a channel's posts (page, before/after a post, since a time), a thread, the posts around the caller's
 * last unread, pinned and saved posts. Each is an id walk plus one hydrating query.
 */

const OptionalId = Schema.optionalWith(Schema.Union(Schema.Literal(""), Decode.Id), { default: () => "" as const })
const Flag = Schema.optionalWith(Decode.QueryBool, { default: () => false })

const ThreadFlags = {
  skipFetchThreads: Flag,
  collapsedThreads: Flag,
  collapsedThreadsExtended: Flag
}

const ChannelParams = Schema.Struct({ channel_id: Decode.Id })
export const ChannelPostsQuery = Schema.Struct({
  page: Decode.QueryInt(0, { min: 0 }),
  per_page: Decode.QueryInt(60, { min: 1, max: 200 }),
  before: OptionalId,
  after: OptionalId,
  since: Decode.QueryInt(0, { min: 0 }),
  include_deleted: Flag,
  ...ThreadFlags
})

const wireOptions = (caller: Caller, q: { readonly collapsedThreads: boolean; readonly collapsedThreadsExtended: boolean }) => ({
  viewer: caller,
  collapsedThreads: q.collapsedThreads,
  extended: q.collapsedThreads && q.collapsedThreadsExtended,
  withRoots: !q.collapsedThreads
})

/** Whole threads come with a channel page unless the client reads collapsed threads or asks to skip them. */
const fetchThreads = (q: { readonly collapsedThreads: boolean; readonly skipFetchThreads: boolean }) =>
  !q.collapsedThreads && !q.skipFetchThreads

interface WindowPage {
  readonly channelId: string
  readonly rootsOnly: boolean
  readonly includeDeleted: boolean
  readonly direction: "older" | "newer"
  readonly anchor?: string
  readonly page: number
  readonly perPage: number
}

/**
 * One page around an offset: the window is widened by one post on each side, so the neighbours give next_post_id
 * (newer) and prev_post_id (older) without another query. `windowQuery` is what to read, `windowPage` the page
 * made of what it read.
 */
const windowQuery = (q: WindowPage): WindowQuery => {
  const offset = q.page * q.perPage
  const lead = offset > 0 ? 1 : 0
  return {
    channelId: q.channelId,
    rootsOnly: q.rootsOnly,
    includeDeleted: q.includeDeleted,
    direction: q.direction,
    anchor: q.anchor,
    offset: offset - lead,
    limit: q.perPage + 1 + lead
  }
}

const windowPage = (q: WindowPage, rows: ReadonlyArray<string>) => {
  const lead = q.page * q.perPage > 0 ? 1 : 0
  const before = lead === 1 && rows.length > 0 ? rows[0] : ""
  const core = rows.slice(lead, lead + q.perPage)
  const beyond = rows[lead + q.perPage] ?? ""
  // A page-0 request anchored on a post has that post as its neighbour, as Mattermost reports it.
  const neighbour = q.page === 0 && q.anchor !== undefined ? q.anchor : before
  return q.direction === "older"
    ? { order: core, next: neighbour, prev: beyond, hasNext: beyond !== "" }
    : { order: [...core].reverse(), next: beyond, prev: neighbour, hasNext: beyond !== "" }
}

/**
 * A channel's posts (page, before/after a post, since a time) once the caller, channel and query are known. One
 * statement (issue 10): the access check, the ids and their hydration, the ids and posts read only when the caller
 * may read the channel (Access.channelGate); its answer (404, 403) is then decided from the same statement's row.
 */
export const channelPage = (caller: Caller, channel_id: string, q: typeof ChannelPostsQuery.Type) =>
  Effect.gen(function*() {
    const access = yield* Access
    const posts = yield* PostRepo
    const pages = yield* PageCache
    const options = { ...wireOptions(caller, q), withThreads: fetchThreads(q) }
    const gate = access.channelGate(caller, channel_id, "read")
    if (q.since > 0) {
      const read = yield* posts.gatedList({
        gate: gate.cte,
        ids: { since: { channelId: channel_id, since: q.since, rootsOnly: q.collapsedThreads } },
        from: 1,
        count: 1000,
        order: (ids) => ids
      }, options)
      yield* gate.decide(read.access)
      return postList(read.ids, read.posts)
    }
    const wanted = wantedPage(caller, channel_id, q)
    // A page may come from PageCache (its text), except the extended collapsed-threads form, whose participants
    // are profiles as the caller may see them. Access is decided on every request: from the caller's last allowed
    // access row while still good (PageCache.reader), else by the access check, a statement of its own.
    const key = q.collapsedThreads && q.collapsedThreadsExtended ? undefined : pageKey(wanted, q)
    if (key !== undefined) {
      const cached = pages.get(channel_id, key)
      if (cached !== undefined) {
        pageCacheCounts.hit++
        if (Buffer.isBuffer(cached)) {
          const known = pages.reader(caller.userId, channel_id)
          if (known !== undefined) {
            pageCacheCounts.kept++
            yield* gate.decide(known)
            return new JsonText(cached)
          }
          pageCacheCounts.checked++
          // The caller's recently viewed channels' rows come with this one's, and are kept where they let them read.
          const readerTicket = pages.readerTicket()
          const rows = yield* posts.gates(access.readerGates(caller, channel_id))
          const row = rows.find((r) => (r as { readonly id?: unknown }).id === channel_id)
          yield* gate.decide(row)
          for (const other of rows) {
            if (other !== row && access.readsNow(caller, other)) pages.keepReader(caller.userId, (other as { readonly id: string }).id, readerTicket, other)
          }
          pages.keepReader(caller.userId, channel_id, readerTicket, row)
          return new JsonText(cached)
        }
        // The caller's is_following of the page's threads, with the access check.
        const checked = yield* posts.gateFollowing(gate.cte, caller.userId, cached.threads)
        yield* gate.decide(checked.access)
        return new JsonText(followingText(cached, checked.following))
      }
      pageCacheCounts.miss++
    }
    // The ticket is taken again as the statement goes out (Db.beforeSend), after any wait for a connection.
    let ticket = pages.ticket()
    const readerTicket = pages.readerTicket()
    const lead = q.page * q.per_page > 0 ? 1 : 0
    const read = yield* posts.gatedList({
      gate: gate.cte,
      ids: { window: windowQuery(wanted) },
      from: lead + 1,
      count: q.per_page,
      order: (ids) => windowPage(wanted, ids).order
    }, options).pipe(key === undefined ? identity : Effect.locally(beforeSend, () => {
      ticket = pages.ticket()
    }))
    yield* gate.decide(read.access)
    if (key !== undefined) pages.keepReader(caller.userId, channel_id, readerTicket, read.access)
    const page = windowPage(wanted, read.ids)
    const cursors = { next: page.next, prev: page.prev, hasNext: page.hasNext }
    // A page whose posts are exactly its order (no roots or threads added: always with collapsed threads) is written
    // from each post's JSON (PageCache.listText, as JSON.stringify(postList(...)) writes it), which the cache keeps.
    const listed = read.posts.length === page.order.length && read.posts.every((post, i) => post.id === page.order[i])
    const postTexts = listed ? read.posts.map((post) => JSON.stringify(post)) : undefined
    const text = postTexts !== undefined
      ? listText(page.order, postTexts, cursors)
      : JSON.stringify(postList(page.order, read.posts, { next_post_id: page.next, prev_post_id: page.prev, has_next: page.hasNext }))
    if (key === undefined) return new JsonText(text)
    if (!q.collapsedThreads || read.threadless) {
      // A channel's two newest pages of roots without threads are kept as their parts too, which new root posts
      // shift (PageCache.withNewPost, shiftedBy).
      const leading: LeadingPage | undefined = postTexts !== undefined && (q.page === 0 || q.page === 1) && wanted.anchor === undefined &&
          read.threadless
        ? leadingPage({
          page: q.page === 0 ? 0 : 1,
          perPage: q.per_page,
          collapsedThreads: q.collapsedThreads,
          order: page.order,
          posts: postTexts,
          next: page.next,
          prev: page.prev,
          newestAt: read.posts[0]?.create_at ?? 0
        })
        : undefined
      pages.put(channel_id, key, ticket, text, leading)
    } else if (postTexts !== undefined) {
      // With collapsed threads a root with a thread shows the caller's own is_following: kept without it.
      const shared = followingPage(page.order, postTexts, new Set(read.threaded), cursors)
      if (shared !== undefined) pages.put(channel_id, key, ticket, shared)
    }
    return new JsonText(text)
  })

const wantedPage = (caller: Caller, channel_id: string, q: typeof ChannelPostsQuery.Type): WindowPage => ({
  channelId: channel_id,
  rootsOnly: q.collapsedThreads,
  includeDeleted: q.include_deleted && caller.isSystemAdmin,
  direction: q.after !== "" ? "newer" : "older",
  anchor: q.after !== "" ? q.after : q.before !== "" ? q.before : undefined,
  page: q.page,
  perPage: q.per_page
})

/**
 * The channel page's answer decided now, outside any effect, in the one case that needs nothing else: a shared page
 * current in PageCache and the caller's kept access row letting them read (src/http/FastPath.ts answers it as it
 * answers /users/me from memory). Undefined in every other case, which `channelPage` then answers (and counts) in
 * full, so a refusal or a page to read is never decided here.
 */
export const cachedPageNow = (
  pages: PageCacheService,
  access: AccessService,
  caller: Caller,
  channel_id: string,
  q: typeof ChannelPostsQuery.Type
): Buffer | undefined => {
  if (q.since > 0 || (q.collapsedThreads && q.collapsedThreadsExtended)) return undefined
  const known = pages.reader(caller.userId, channel_id)
  if (known === undefined || !access.readsNow(caller, known)) return undefined
  const cached = pages.peek(channel_id, pageKey(wantedPage(caller, channel_id, q), q))
  if (!Buffer.isBuffer(cached)) return undefined
  pageCacheCounts.hit++
  pageCacheCounts.kept++
  return cached
}

/** What a page's text depends on besides its channel (the caller only through includeDeleted, an admin's). */
const pageKey = (wanted: WindowPage, q: typeof ChannelPostsQuery.Type) =>
  `${wanted.page}|${wanted.perPage}|${q.before}|${q.after}|${q.collapsedThreads ? 1 : 0}|${q.skipFetchThreads ? 1 : 0}|${wanted.includeDeleted ? 1 : 0}`

const channelPosts = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const { channel_id } = yield* Decode.params(ChannelParams)
  const q = yield* Decode.query(ChannelPostsQuery)
  return json(yield* channelPage(caller, channel_id, q))
})

const PostParams = Schema.Struct({ post_id: Decode.Id })
const ThreadQuery = Schema.Struct({
  perPage: Decode.QueryInt(0, { min: 0, max: 1000 }),
  fromPost: OptionalId,
  fromCreateAt: Decode.QueryInt(0, { min: 0 }),
  fromUpdateAt: Decode.QueryInt(0, { min: 0 }),
  direction: Schema.optionalWith(Schema.Literal("", "up", "down"), { default: () => "" as const }),
  updatesOnly: Flag,
  ...ThreadFlags
})

/** A thread: its root always, and its replies (all of them, or a page in the asked direction with has_next). */
const thread = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const { post_id } = yield* Decode.params(PostParams)
  const q = yield* Decode.query(ThreadQuery)
  const access = yield* Access
  yield* access.post(caller, post_id, "read")
  const posts = yield* PostRepo
  const rootId = Option.getOrThrow(yield* posts.threadRoot(post_id)) // access.post found it
  const direction = q.direction === "up" ? "up" : "down"
  const from = q.fromPost !== "" || q.fromCreateAt > 0
    ? { id: q.fromPost !== "" ? q.fromPost : undefined, createAt: q.fromCreateAt > 0 ? q.fromCreateAt : undefined }
    : undefined
  const replies = yield* posts.threadReplies({
    rootId,
    direction,
    from,
    updatedSince: q.updatesOnly && q.fromUpdateAt > 0 ? q.fromUpdateAt : undefined,
    limit: q.perPage > 0 ? q.perPage + 1 : undefined
  })
  const hasNext = q.perPage > 0 && replies.length > q.perPage
  const page = hasNext ? replies.slice(0, q.perPage) : replies
  const newestFirst = direction === "down" ? [...page].reverse() : page
  const order = [...newestFirst, rootId]
  const hydrated = yield* posts.hydrate(order, { ...wireOptions(caller, q), withRoots: false })
  if (!hydrated.some((p) => p.id === rootId)) return yield* notFound("app.post.get.app_error", "Post not found.")
  return json(postList(order, hydrated, { has_next: hasNext }))
})

const UserChannelParams = Schema.Struct({ user_id: OwnUserParam, channel_id: Decode.Id })
const UnreadQuery = Schema.Struct({
  limit_before: Decode.QueryInt(60, { min: 0, max: 200 }),
  limit_after: Decode.QueryInt(60, { min: 0, max: 200 }),
  ...ThreadFlags
})

/** The posts around the caller's last read one: up to limit_before read posts and limit_after unread ones. */
const aroundUnread = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const params = yield* Decode.params(UserChannelParams)
  const q = yield* Decode.query(UnreadQuery)
  if (q.limit_after === 0) return yield* badRequest("api.context.invalid_url_param.app_error", "Invalid or missing limit_after parameter in request URL.")
  const user_id = yield* ownUser(params.user_id)
  const channel_id = params.channel_id
  const access = yield* Access
  yield* access.channel(caller, channel_id, "read")
  const posts = yield* PostRepo
  const member = yield* posts.lastViewedAt(channel_id, user_id)
  if (Option.isNone(member)) return yield* forbidden("api.context.permissions.app_error", "You are not a member of this channel.")
  const lastViewed = member.value
  const base = { channelId: channel_id, rootsOnly: q.collapsedThreads, includeDeleted: false, anchorTime: lastViewed, offset: 0 }
  const older = yield* posts.channelWindow({ ...base, direction: "older", limit: q.limit_before + 1 })
  const newer = yield* posts.channelWindow({ ...base, direction: "newer", limit: q.limit_after + 1 })
  const order = [...newer.slice(0, q.limit_after).reverse(), ...older.slice(0, q.limit_before)]
  const hydrated = yield* posts.hydrate(order, { ...wireOptions(caller, q), withThreads: fetchThreads(q) })
  return json(postList(order, hydrated, {
    next_post_id: newer[q.limit_after] ?? "",
    prev_post_id: older[q.limit_before] ?? ""
  }))
})

const pinned = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const { channel_id } = yield* Decode.params(ChannelParams)
  const access = yield* Access
  yield* access.channel(caller, channel_id, "read")
  const posts = yield* PostRepo
  const order = yield* posts.pinned(channel_id)
  return json(postList(order, yield* posts.hydrate(order, { viewer: caller, collapsedThreads: false, extended: false })))
})

const UserParams = Schema.Struct({ user_id: OwnUserParam })
const FlaggedQuery = Schema.Struct({
  channel_id: OptionalId,
  team_id: OptionalId,
  page: Decode.QueryInt(0, { min: 0 }),
  per_page: Decode.QueryInt(60, { min: 1, max: 200 })
})

/** Saved posts: the flagged_post preferences of the caller, in channels they still belong to. */
const flagged = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const params = yield* Decode.params(UserParams)
  const q = yield* Decode.query(FlaggedQuery)
  const user_id = yield* ownUser(params.user_id)
  const access = yield* Access
  if (q.channel_id !== "") yield* access.channel(caller, q.channel_id, "read")
  if (q.team_id !== "") yield* access.team(caller, q.team_id)
  const posts = yield* PostRepo
  const order = yield* posts.flagged({
    userId: user_id,
    channelId: q.channel_id !== "" ? q.channel_id : undefined,
    teamId: q.team_id !== "" ? q.team_id : undefined,
    offset: q.page * q.per_page,
    limit: q.per_page
  })
  return json(postList(order, yield* posts.hydrate(order, { viewer: caller, collapsedThreads: false, extended: false })))
})

export const routes = HttpRouter.empty.pipe(
  HttpRouter.get("/api/v4/channels/:channel_id/posts", authed(channelPosts)),
  HttpRouter.get("/api/v4/channels/:channel_id/pinned", authed(pinned)),
  HttpRouter.get("/api/v4/posts/:post_id/thread", authed(thread)),
  HttpRouter.get("/api/v4/users/:user_id/channels/:channel_id/posts/unread", authed(aroundUnread)),
  HttpRouter.get("/api/v4/users/:user_id/posts/flagged", authed(flagged))
)
