import { Effect } from "effect"
import type { DbError } from "../../layers/Db.ts"
import { DomainEvent } from "../../schemas/Events.ts"
import { EventBus } from "../events/EventBus.ts"
import { PostRepo } from "../posts/PostRepo.ts"
import { ThreadRepo } from "./ThreadRepo.ts"
import { toWire, type UserThreadJson } from "./ThreadWire.ts"

/** Participants go to several users at once, so they are rendered for nobody in particular (no private fields). */
const NEUTRAL_VIEWER = { userId: "", isSystemAdmin: false }

/**
 * The UserThread of each given user who has a membership, in two queries (memberships, then the root hydrated once).
 * `extended` renders participants as users.
 */
export const userThreads = (
  threadId: string,
  userIds: ReadonlyArray<string> | "followers",
  extended: boolean,
  viewer = NEUTRAL_VIEWER
) =>
  Effect.gen(function*() {
    const threads = yield* ThreadRepo
    const posts = yield* PostRepo
    const rows = yield* threads.memberships(threadId, userIds)
    if (rows.length === 0) return new Map<string, UserThreadJson>()
    const [root] = yield* posts.hydrate([threadId], { viewer, collapsedThreads: true, extended })
    if (root === undefined) return new Map<string, UserThreadJson>()
    return new Map(rows.map((row) => [row.user_id, toWire(row, { ...root, is_following: row.following })]))
  })

/**
 * `thread_updated` to each follower after a reply: data.thread as a JSON string, with the unread counts the user had
 * before this reply.
 */
export const publishThreadUpdated = (
  threadId: string,
  reply: { readonly authorId: string; readonly mentioned: ReadonlySet<string> }
): Effect.Effect<void, DbError, ThreadRepo | PostRepo | EventBus> =>
  Effect.gen(function*() {
    const bus = yield* EventBus
    const threads = yield* userThreads(threadId, "followers", true)
    yield* Effect.forEach(threads, ([userId, thread]) => {
      const own = userId === reply.authorId
      return bus.publish(DomainEvent.ThreadUpdated({
        thread,
        previousUnreadReplies: own ? thread.unread_replies : Math.max(0, thread.unread_replies - 1),
        previousUnreadMentions: Math.max(0, thread.unread_mentions - (reply.mentioned.has(userId) ? 1 : 0))
      }), { user_id: userId })
    }, { discard: true })
  })
