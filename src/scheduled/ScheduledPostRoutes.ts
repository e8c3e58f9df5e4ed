import { HttpRouter } from "@effect/platform"
import { Clock, Effect, Option, Schema } from "effect"
import { newId } from "../../layers/Crypto.ts"
import { ScheduledListQuery, ScheduledPostBody } from "../../schemas/ScheduledPosts.ts"
import { Access } from "../access/Access.ts"
import type { Caller } from "../auth/Authenticate.ts"
import { authed, CurrentCaller } from "../auth/Guards.ts"
import { badRequest, notFound, permissionDenied } from "../http/ApiError.ts"
import * as Decode from "../http/Decode.ts"
import { respondWith } from "../http/Respond.ts"
import { ScheduledPost, ScheduledPostsByTeam } from "../../schemas/wire/Draft.ts"
import { invalidMessageLength } from "../posts/CreatePost.ts"
import { checkPriority } from "../posts/PostPriority.ts"
import { MESSAGE_MAX_RUNES, runeLength } from "../posts/MessageText.ts"
import { ScheduledPostRepo } from "./ScheduledPostRepo.ts"

/** Scheduled messages: the user's own, in channels they may post in, sent by ScheduledPostJob when due. */

const IdParams = Schema.Struct({ scheduled_post_id: Decode.Id })
const TeamParams = Schema.Struct({ team_id: Decode.Id })

/** The checks a message passes when scheduled, so that most refusals come at once rather than at sending time. */
const checked = (caller: Caller, input: ScheduledPostBody) =>
  Effect.gen(function*() {
    const now = yield* Clock.currentTimeMillis
    if (input.scheduled_at <= now) {
      return yield* badRequest("app.schedule_post.save.invalid_scheduled_at.app_error", "The scheduled time must be in the future.")
    }
    if (input.message.trim() === "" && input.file_ids.length === 0) {
      return yield* badRequest("model.scheduled_post.is_valid.empty_post.app_error", "A scheduled post needs a message or a file.")
    }
    if (runeLength(input.message) > MESSAGE_MAX_RUNES) return yield* invalidMessageLength()
    const { channel } = yield* (yield* Access).channel(caller, input.channel_id, "write")
    if (channel.delete_at > 0) {
      return yield* badRequest("api.post.create_post.can_not_post_to_deleted.error", "Can not post to deleted channel.")
    }
    return {
      fields: {
        channelId: input.channel_id,
        rootId: input.root_id,
        message: input.message,
        props: input.props,
        fileIds: input.file_ids,
        scheduledAt: input.scheduled_at,
        priority: (yield* checkPriority(input.priority, input.root_id)) ?? null
      },
      now
    }
  })

/** The caller's own scheduled post: someone else's is a 403, a missing one a 404. */
const ownScheduled = (caller: Caller, id: string) =>
  Effect.gen(function*() {
    const found = yield* (yield* ScheduledPostRepo).get(id)
    if (Option.isNone(found)) return yield* notFound("app.schedule_post.get.app_error", "Scheduled post not found.")
    if (found.value.user_id !== caller.userId) return yield* permissionDenied("this scheduled post")
    return found.value
  })

const create = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const input = yield* Decode.body(ScheduledPostBody)
  const { fields, now } = yield* checked(caller, input)
  return yield* respondWith(ScheduledPost, yield* (yield* ScheduledPostRepo).insert(newId(), caller.userId, fields, now), 201)
})

const update = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const { scheduled_post_id } = yield* Decode.params(IdParams)
  const input = yield* Decode.body(ScheduledPostBody)
  if (input.id !== undefined && input.id !== scheduled_post_id) {
    return yield* badRequest("api.context.invalid_param.app_error", "Invalid or missing id parameter in request body.")
  }
  yield* ownScheduled(caller, scheduled_post_id)
  const { fields, now } = yield* checked(caller, input)
  const updated = yield* (yield* ScheduledPostRepo).update(scheduled_post_id, caller.userId, fields, now)
  // Claimed by the job between the two statements: it is being sent.
  if (Option.isNone(updated)) return yield* badRequest("app.schedule_post.update.already_sent.app_error", "The scheduled post is being sent.")
  return yield* respondWith(ScheduledPost, updated.value)
})

const remove = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const { scheduled_post_id } = yield* Decode.params(IdParams)
  yield* ownScheduled(caller, scheduled_post_id)
  const removed = yield* (yield* ScheduledPostRepo).remove(scheduled_post_id, caller.userId)
  if (Option.isNone(removed)) return yield* notFound("app.schedule_post.get.app_error", "Scheduled post not found.")
  return yield* respondWith(ScheduledPost, removed.value)
})

/** `{[team_id]: [...]}`, plus `directChannels` when asked, as Mattermost answers. */
const list = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const { team_id } = yield* Decode.params(TeamParams)
  const { includeDirectChannels } = yield* Decode.query(ScheduledListQuery)
  yield* (yield* Access).team(caller, team_id)
  const { team, direct } = yield* (yield* ScheduledPostRepo).forTeam(caller.userId, team_id)
  return yield* respondWith(ScheduledPostsByTeam, { [team_id]: team, ...(includeDirectChannels === "true" ? { directChannels: direct } : {}) })
})

export const routes = HttpRouter.empty.pipe(
  HttpRouter.post("/api/v4/posts/schedule", authed(create)),
  HttpRouter.put("/api/v4/posts/schedule/:scheduled_post_id", authed(update)),
  HttpRouter.del("/api/v4/posts/schedule/:scheduled_post_id", authed(remove)),
  HttpRouter.get("/api/v4/posts/scheduled/team/:team_id", authed(list))
)
