import { Clock, Effect, Layer, Option, Schedule } from "effect"
import { actingAs } from "../integrations/ActingCaller.ts"
import { type DomainError, isDomainError } from "../../schemas/Errors.ts"
import { createPost } from "../posts/CreatePost.ts"
import { siteSwitches } from "../system/ServerSettings.ts"
import { UserRepo } from "../users/UserRepo.ts"
import type { ScheduledPostJson } from "../../schemas/ScheduledPosts.ts"
import { ScheduledPostRepo } from "./ScheduledPostRepo.ts"

/**
 * Posts scheduled messages when due, on every node: each round claims due rows (FOR UPDATE SKIP LOCKED), so that
 * every message is claimed by one node only and posted once; a posted message's row is deleted. A message that cannot
 * be posted keeps its row with Mattermost's error code, for the user to see, edit or delete.
 */
export const JOB_EVERY = "1 second"
const BATCH = 50

/** Mattermost's ScheduledPost error codes, from the reason the post was refused. */
const errorCode = (error: DomainError) => {
  if (error.id === "api.post.create_post.can_not_post_to_deleted.error") return "channel_archived"
  if (error.id === "api.post.create_post.root_id.app_error") return "thread_deleted"
  switch (error._tag) {
    case "NotFound":
      return "channel_not_found"
    case "Forbidden":
      return "no_channel_permission"
    case "Invalid":
      return "invalid_post"
    default:
      return "unknown"
  }
}

const send = (scheduled: ScheduledPostJson) =>
  Effect.gen(function*() {
    const repo = yield* ScheduledPostRepo
    const now = yield* Clock.currentTimeMillis
    const user = yield* (yield* UserRepo).findById(scheduled.user_id)
    if (Option.isNone(user) || Number(user.value.delete_at) > 0) return yield* repo.failed(scheduled.id, "user_deleted", now)
    // Post priority switched off since the message was scheduled: it is sent without one rather than not at all.
    const priority = scheduled.priority !== undefined && (yield* siteSwitches).postPriority ? scheduled.priority : undefined
    const outcome = yield* Effect.either(createPost(yield* actingAs({ id: user.value.id, roles: user.value.roles, is_bot: false }, now), {
      channel_id: scheduled.channel_id,
      message: scheduled.message,
      root_id: scheduled.root_id,
      file_ids: scheduled.file_ids,
      props: scheduled.props,
      pending_post_id: "",
      type: "",
      ...(priority === undefined ? {} : { metadata: { priority } })
    }, false))
    if (outcome._tag === "Right") return yield* repo.done(scheduled.id)
    const error = outcome.left
    // A refusal is a domain error (createPost's checks, Access's); anything else (the database) is "unknown".
    yield* repo.failed(scheduled.id, isDomainError(error) ? errorCode(error) : "unknown", now)
  })

export const runOnce = Effect.gen(function*() {
  const due = yield* (yield* ScheduledPostRepo).claimDue(yield* Clock.currentTimeMillis, BATCH)
  yield* Effect.forEach(due, (s) => send(s).pipe(Effect.catchAllCause((cause) => Effect.logWarning("scheduled post not sent", cause))), {
    discard: true
  })
})

export const layer = Layer.scopedDiscard(
  runOnce.pipe(
    Effect.catchAllCause((cause) => Effect.logWarning("scheduled posts round failed", cause)),
    Effect.repeat(Schedule.spaced(JOB_EVERY)),
    Effect.forkScoped
  )
)
