import { Clock, Effect, Either, Option, Schema } from "effect"
import { Statuses } from "../status/Statuses.ts"
import { MATTERMOST_VERSION } from "../system/Version.ts"
import type { Connection } from "./Connection.ts"
import { type ClientRequest, RequestErrors, type RequestError } from "./Frames.ts"
import { Hub } from "./Hub.ts"
import { relayTyping } from "./RelayTyping.ts"
import { ListOf, MaxItems } from "../../schemas/Limits.ts"
import { Id } from "../../schemas/Params.ts"

/**
 * Requests an authenticated client may send (mattermost-compat.md 8.7). Each answers with reply data (`undefined`
 * for a bare OK) or a RequestError; `NoReply` is for the repeated authentication challenge, which Mattermost
 * ignores silently.
 */
export const NoReply = Symbol("NoReply")

const IdString = Id
const Typing = Schema.Struct({
  channel_id: IdString,
  /** The thread's root post, or "" for the channel itself. */
  parent_id: Schema.optionalWith(Schema.Union(IdString, Schema.Literal("")), { default: () => "" })
})
const StatusIds = Schema.Struct({ user_ids: ListOf(IdString, MaxItems.userIds) })
const ActiveStatus = Schema.Struct({
  user_is_active: Schema.Boolean,
  manual: Schema.optionalWith(Schema.Boolean, { default: () => false })
})
const PresenceData = Schema.Struct({
  channel_id: Schema.optional(Schema.String),
  team_id: Schema.optional(Schema.String),
  thread_channel_id: Schema.optional(Schema.String)
})

const decode = <A, I>(schema: Schema.Schema<A, I>, data: unknown, name: string) =>
  Either.match(Schema.decodeUnknownEither(schema)(data ?? {}), {
    onLeft: () => Effect.fail<RequestError>(RequestErrors.invalidParam(name)),
    onRight: (value) => Effect.succeed(value)
  })

const statusMap = (list: ReadonlyArray<{ readonly user_id: string; readonly status: string }>) =>
  Object.fromEntries(list.map((s) => [s.user_id, s.status]))

export const handleAction = (connection: Connection, request: ClientRequest) =>
  Effect.gen(function*() {
    const statuses = yield* Statuses
    switch (request.action) {
      case "authentication_challenge":
        return NoReply
      case "ping": {
        const hub = yield* Hub
        return { text: "pong", version: MATTERMOST_VERSION, server_time: yield* Clock.currentTimeMillis, node_id: hub.nodeId }
      }
      case "user_typing": {
        const hub = yield* Hub
        const input = yield* decode(Typing, request.data, "channel_id or parent_id")
        if (!(yield* hub.isChannelMember(connection.userId, input.channel_id))) return yield* Effect.fail(RequestErrors.forbidden)
        yield* relayTyping(connection.userId, input.channel_id, input.parent_id)
        return undefined
      }
      case "get_statuses": {
        const hub = yield* Hub
        const others = yield* statuses.nonOfflineInChannels(hub.channelsOf(connection.userId))
        const own = yield* statuses.get([connection.userId])
        return statusMap([...others, ...own])
      }
      case "get_statuses_by_ids": {
        const input = yield* decode(StatusIds, request.data, "user_ids")
        if (input.user_ids.length === 0) return yield* Effect.fail(RequestErrors.invalidParam("user_ids"))
        return statusMap(yield* statuses.get([...new Set(input.user_ids)]))
      }
      case "user_update_active_status": {
        const input = yield* decode(ActiveStatus, request.data, "user_is_active")
        yield* input.user_is_active ? statuses.active(connection.userId) : statuses.idle(connection.userId, input.manual)
        return undefined
      }
      case "presence": {
        const input = yield* decode(PresenceData, request.data, "channel_id")
        connection.activeChannel = Option.getOrElse(
          Option.fromNullable(input.channel_id ?? input.thread_channel_id),
          () => connection.activeChannel
        )
        return undefined
      }
      case "posted_notify_ack":
        // Delivery receipts for clients connected with posted_ack=true; this server does not request them.
        return undefined
      case "":
        return yield* Effect.fail(RequestErrors.noAction)
      default:
        return yield* Effect.fail(RequestErrors.badAction)
    }
  })
