import { HttpRouter, HttpServerRequest } from "@effect/platform"
import { Clock, Effect, Option, Schema } from "effect"
import { DraftBody } from "../../schemas/Drafts.ts"
import { DomainEvent } from "../../schemas/Events.ts"
import { isId } from "../../schemas/Params.ts"
import { Access } from "../access/Access.ts"
import { ownUserId } from "../access/UserParam.ts"
import { authed, CurrentCaller } from "../auth/Guards.ts"
import { EventBus } from "../events/EventBus.ts"
import { badRequest, permissionDenied } from "../http/ApiError.ts"
import * as Decode from "../http/Decode.ts"
import { ok, respondWith, respondWithAll } from "../http/Respond.ts"
import { Draft } from "../../schemas/wire/Draft.ts"
import { invalidMessageLength } from "../posts/CreatePost.ts"
import { MESSAGE_MAX_RUNES, runeLength } from "../posts/MessageText.ts"
import { draftPriority } from "../posts/PostPriority.ts"
import { DraftRepo } from "./DraftRepo.ts"

/**
 * Synced drafts: what a user is typing in a channel or thread, kept on the server so that their other devices show
 * it. Only the user's own drafts, in channels they may post in; every change reaches the user's sockets
 * (draft_created, draft_updated, draft_deleted).
 */

const TeamParams = Schema.Struct({ team_id: Decode.Id })
const ChannelParams = Schema.Struct({ channel_id: Decode.Id, thread_id: Schema.optional(Decode.Id) })

/** The sender's socket (Client4's Connection-Id header) is left out: it already shows the change. */
const toUser = (userId: string) =>
  Effect.map(HttpServerRequest.HttpServerRequest, (request) => {
    const connection = request.headers["connection-id"] ?? ""
    return { user_id: userId, omit_connection_id: isId(connection) ? connection : "" }
  })

const ownOnly = Effect.zipRight(ownUserId("the drafts of another user"), CurrentCaller)

const save = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const input = yield* Decode.body(DraftBody)
  if (input.user_id !== undefined && input.user_id !== "" && input.user_id !== caller.userId) {
    return yield* permissionDenied("the drafts of another user")
  }
  if (runeLength(input.message) > MESSAGE_MAX_RUNES) return yield* invalidMessageLength()
  const { channel } = yield* (yield* Access).channel(caller, input.channel_id, "write")
  if (channel.delete_at > 0) return yield* badRequest("api.drafts.create_draft.archived_channel.app_error", "Cannot save a draft in an archived channel.")
  const now = yield* Clock.currentTimeMillis
  const { draft, created: isNew } = yield* (yield* DraftRepo).upsert({
    userId: caller.userId,
    channelId: input.channel_id,
    rootId: input.root_id,
    message: input.message,
    props: input.props,
    fileIds: input.file_ids,
    priority: yield* draftPriority(input.priority),
    now
  })
  yield* (yield* EventBus).publish(isNew ? DomainEvent.DraftCreated({ draft }) : DomainEvent.DraftUpdated({ draft }), yield* toUser(caller.userId))
  return yield* respondWith(Draft, draft, 201)
})

const list = Effect.gen(function*() {
  const caller = yield* ownOnly
  const { team_id } = yield* Decode.params(TeamParams)
  yield* (yield* Access).team(caller, team_id)
  return yield* respondWithAll(Draft, yield* (yield* DraftRepo).forTeam(caller.userId, team_id))
})

const remove = Effect.gen(function*() {
  const caller = yield* ownOnly
  const { channel_id, thread_id } = yield* Decode.params(ChannelParams)
  const removed = yield* (yield* DraftRepo).remove(caller.userId, channel_id, thread_id ?? "")
  if (Option.isSome(removed)) {
    yield* (yield* EventBus).publish(DomainEvent.DraftDeleted({ draft: removed.value }), yield* toUser(caller.userId))
  }
  return ok()
})

export const routes = HttpRouter.empty.pipe(
  HttpRouter.post("/api/v4/drafts", authed(save)),
  HttpRouter.get("/api/v4/users/:user_id/teams/:team_id/drafts", authed(list)),
  HttpRouter.del("/api/v4/users/:user_id/channels/:channel_id/drafts", authed(remove)),
  HttpRouter.del("/api/v4/users/:user_id/channels/:channel_id/drafts/:thread_id", authed(remove))
)
