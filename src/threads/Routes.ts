import { HttpRouter } from "@effect/platform"
import { Clock, Effect, Option, Schema } from "effect"
import { DomainEvent } from "../../schemas/Events.ts"
import { Thread, ThreadList } from "../../schemas/wire/Thread.ts"
import { Access } from "../access/Access.ts"
import type { Caller } from "../auth/Authenticate.ts"
import { authed, CurrentCaller } from "../auth/Guards.ts"
import { EventBus } from "../events/EventBus.ts"
import { badRequest, notFound } from "../http/ApiError.ts"
import * as Decode from "../http/Decode.ts"
import { ok, respondWith } from "../http/Respond.ts"
import { PostRepo } from "../posts/PostRepo.ts"
import { userThreads } from "./ThreadEvents.ts"
import { ThreadRepo } from "./ThreadRepo.ts"
import { UserRepo } from "../users/UserRepo.ts"
import { toWire } from "./ThreadWire.ts"
import { OwnUserParam, ownUser } from "../posts/OwnUser.ts"

/** The collapsed-threads API of a user in a team: list with totals, one thread, read state and following. */

const Flag = Schema.optionalWith(Decode.QueryBool, { default: () => false })
const OptionalId = Schema.optionalWith(Schema.Union(Schema.Literal(""), Decode.Id), { default: () => "" as const })

const UserTeam = Schema.Struct({ user_id: OwnUserParam, team_id: Decode.Id })
const UserTeamThread = Schema.Struct({ user_id: OwnUserParam, team_id: Decode.Id, thread_id: Decode.Id })
const ReadUpToParams = Schema.Struct({
  user_id: OwnUserParam,
  team_id: Decode.Id,
  thread_id: Decode.Id,
  timestamp: Schema.NumberFromString.pipe(Schema.int(), Schema.nonNegative())
})
const SetUnreadParams = Schema.Struct({ user_id: OwnUserParam, team_id: Decode.Id, thread_id: Decode.Id, post_id: Decode.Id })

/** Threads are the caller's own; the team must be theirs. Answers the caller's id. */
const ownTeam = (caller: Caller, rawUserId: string, teamId: string) =>
  Effect.gen(function*() {
    const userId = yield* ownUser(rawUserId)
    const access = yield* Access
    yield* access.team(caller, teamId)
    return userId
  })

/** A thread the caller may read: its root has replies and its channel is readable. */
const readableThread = (caller: Caller, threadId: string) =>
  Effect.gen(function*() {
    const threads = yield* ThreadRepo
    const thread = yield* threads.thread(threadId)
    if (thread === undefined) return yield* notFound("app.user.get_threads.app_error", "Thread not found.")
    const access = yield* Access
    yield* access.channel(caller, thread.channel_id, "read")
    return thread
  })

const ListQuery = Schema.Struct({
  since: Decode.QueryInt(0, { min: 0 }),
  deleted: Flag,
  unread: Flag,
  totalsOnly: Flag,
  threadsOnly: Flag,
  extended: Flag,
  excludeDirect: Flag,
  per_page: Decode.QueryInt(0, { min: 0, max: 200 }),
  pageSize: Decode.QueryInt(0, { min: 0, max: 200 }),
  before: OptionalId,
  after: OptionalId
})
const ExtendedQuery = Schema.Struct({ extended: Flag })

const PAGE_DEFAULT = 30

const list = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const params = yield* Decode.params(UserTeam)
  const q = yield* Decode.query(ListQuery)
  if (q.before !== "" && q.after !== "") return yield* badRequest("api.context.invalid_url_param.app_error", "Only one of before and after may be given.")
  const user_id = yield* ownTeam(caller, params.user_id, params.team_id)
  const team_id = params.team_id
  const threads = yield* ThreadRepo
  const posts = yield* PostRepo
  const totals = q.threadsOnly
    ? { total: 0, total_unread_threads: 0, total_unread_mentions: 0, total_unread_urgent_mentions: 0 }
    : yield* threads.totals({ userId: user_id, teamId: team_id, excludeDirect: q.excludeDirect })
  if (q.totalsOnly) return yield* respondWith(ThreadList, { ...totals, threads: [] })
  const rows = yield* threads.list({
    userId: user_id,
    teamId: team_id,
    excludeDirect: q.excludeDirect,
    deleted: q.deleted,
    unreadOnly: q.unread,
    since: q.since,
    before: q.before !== "" ? q.before : undefined,
    after: q.after !== "" ? q.after : undefined,
    limit: q.per_page > 0 ? q.per_page : q.pageSize > 0 ? q.pageSize : PAGE_DEFAULT
  })
  const roots = yield* posts.hydrate(rows.map((r) => r.post_id), { viewer: caller, collapsedThreads: true, extended: q.extended })
  const byId = new Map(roots.map((p) => [p.id as string, p]))
  const list = rows.flatMap((row) => {
    const post = byId.get(row.post_id)
    return post === undefined ? [] : [toWire(row, post)]
  })
  return yield* respondWith(ThreadList, { ...totals, threads: list })
})

const one = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const { thread_id, ...params } = yield* Decode.params(UserTeamThread)
  const q = yield* Decode.query(ExtendedQuery)
  const user_id = yield* ownTeam(caller, params.user_id, params.team_id)
  yield* readableThread(caller, thread_id)
  const found = yield* userThreads(thread_id, [user_id], q.extended, caller)
  const thread = found.get(user_id)
  if (thread === undefined) return yield* notFound("app.user.get_threads.app_error", "Thread not found.")
  return yield* respondWith(Thread, thread)
})

/**
 * Moves the user's read point of a thread to `at`, recounts unread mentions after it, publishes thread_read_changed
 * with the counts before and after, and answers the thread.
 */
const moveReadPoint = (caller: Caller, threadId: string, at: number) =>
  Effect.gen(function*() {
    const thread = yield* readableThread(caller, threadId)
    const threads = yield* ThreadRepo
    const [before] = yield* threads.memberships(threadId, [caller.userId])
    const user = yield* (yield* UserRepo).findById(caller.userId)
    const now = yield* Clock.currentTimeMillis
    yield* threads.setLastViewed(threadId, caller.userId, Option.match(user, { onNone: () => "", onSome: (u) => u.username }), at, now)
    const found = yield* userThreads(threadId, [caller.userId], false, caller)
    const after = found.get(caller.userId)
    if (after === undefined) return yield* notFound("app.user.get_threads.app_error", "Thread not found.")
    const bus = yield* EventBus
    yield* bus.publish(DomainEvent.ThreadRead({
      threadId,
      timestamp: at,
      unreadMentions: after.unread_mentions,
      unreadReplies: after.unread_replies,
      previousUnreadMentions: Number(before?.unread_mentions ?? 0),
      previousUnreadReplies: Number(before?.unread_replies ?? 0),
      channelId: thread.channel_id
    }), { user_id: caller.userId })
    return after
  })

const readUpTo = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const params = yield* Decode.params(ReadUpToParams)
  yield* ownTeam(caller, params.user_id, params.team_id)
  return yield* respondWith(Thread, yield* moveReadPoint(caller, params.thread_id, params.timestamp))
})

const setUnread = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const params = yield* Decode.params(SetUnreadParams)
  yield* ownTeam(caller, params.user_id, params.team_id)
  const createAt = yield* (yield* ThreadRepo).postCreateAt(params.thread_id, params.post_id)
  if (Option.isNone(createAt)) return yield* notFound("app.post.get.app_error", "Post not found in this thread.")
  return yield* respondWith(Thread, yield* moveReadPoint(caller, params.thread_id, createAt.value - 1))
})

const follow = (following: boolean) =>
  Effect.gen(function*() {
    const caller = yield* CurrentCaller
    const { thread_id, ...params } = yield* Decode.params(UserTeamThread)
    const user_id = yield* ownTeam(caller, params.user_id, params.team_id)
    const thread = yield* readableThread(caller, thread_id)
    const threads = yield* ThreadRepo
    const now = yield* Clock.currentTimeMillis
    yield* threads.setFollowing(thread_id, user_id, following, now)
    const bus = yield* EventBus
    yield* bus.publish(DomainEvent.ThreadFollowChanged({
      threadId: thread_id,
      following,
      replyCount: Number(thread.reply_count)
    }), { user_id })
    return ok()
  })

const readAll = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const params = yield* Decode.params(UserTeam)
  const user_id = yield* ownTeam(caller, params.user_id, params.team_id)
  const threads = yield* ThreadRepo
  const now = yield* Clock.currentTimeMillis
  yield* threads.markAllRead(user_id, params.team_id, now)
  const bus = yield* EventBus
  yield* bus.publish(DomainEvent.ThreadsAllRead({ timestamp: now }), { user_id })
  return ok()
})

const base = "/api/v4/users/:user_id/teams/:team_id/threads"

export const routes = HttpRouter.empty.pipe(
  HttpRouter.get(base, authed(list)),
  HttpRouter.put(`${base}/read`, authed(readAll)),
  HttpRouter.get(`${base}/:thread_id`, authed(one)),
  HttpRouter.put(`${base}/:thread_id/read/:timestamp`, authed(readUpTo)),
  HttpRouter.post(`${base}/:thread_id/set_unread/:post_id`, authed(setUnread)),
  HttpRouter.put(`${base}/:thread_id/following`, authed(follow(true))),
  HttpRouter.del(`${base}/:thread_id/following`, authed(follow(false)))
)
