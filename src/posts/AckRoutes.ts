import { HttpRouter } from "@effect/platform"
import { Clock, Effect, Schema } from "effect"
import { Db } from "../../layers/Db.ts"
import { Access } from "../access/Access.ts"
import { type Caller, requireCaller } from "../auth/Authenticate.ts"
import { EventBus } from "../events/EventBus.ts"
import { forbidden, notFound } from "../http/ApiError.ts"
import * as Decode from "../http/Decode.ts"
import { json, ok } from "../http/Respond.ts"
import { OwnUserParam, ownUser } from "./OwnUser.ts"
import type { AcknowledgementJson } from "./PostWire.ts"

/**
 * Post acknowledgements (api4/post.go acknowledgePost / unacknowledgePost): a reader of the post acknowledges it for
 * themself; posts list them in `metadata.acknowledgements`. An acknowledgement may only be taken back within five
 * minutes, as Mattermost allows.
 */
const REMOVE_DEADLINE_MS = 5 * 60 * 1000

const AckParams = Schema.Struct({ user_id: OwnUserParam, post_id: Decode.Id })

interface AckRow {
  readonly user_id: string
  readonly post_id: string
  readonly acknowledged_at: string | number
}

const toWire = (row: AckRow): AcknowledgementJson => ({
  user_id: row.user_id,
  post_id: row.post_id,
  acknowledged_at: Number(row.acknowledged_at)
})

/** The caller acting for themself on a post they may read, in a channel that is not archived. */
const acknowledgeable = (caller: Caller, archivedId: string) =>
  Effect.gen(function*() {
    const params = yield* Decode.params(AckParams)
    const userId = yield* ownUser(caller, params.user_id)
    const access = yield* Access
    const { channel } = yield* access.post(caller, params.post_id, "read")
    if (channel.delete_at > 0) {
      return yield* forbidden(archivedId, "Cannot acknowledge posts in an archived channel.")
    }
    return { userId, postId: params.post_id, channelId: channel.id }
  })

const publish = (event: "post_acknowledgement_added" | "post_acknowledgement_removed", ack: AcknowledgementJson, channelId: string) =>
  Effect.flatMap(EventBus, (bus) => bus.publish(event, { acknowledgement: JSON.stringify(ack) }, { channel_id: channelId }))

/** Acknowledging again moves acknowledged_at to now (Mattermost's upsert), which restarts the removal window. */
const acknowledge = Effect.gen(function*() {
  const caller = yield* requireCaller
  const target = yield* acknowledgeable(caller, "api.acknowledgement.save.archived_channel.app_error")
  const db = yield* Db
  const sql = db.sql
  const now = yield* Clock.currentTimeMillis
  const row = yield* db.transaction(Effect.gen(function*() {
    const [saved] = yield* sql<AckRow>`
      INSERT INTO post_acknowledgements (post_id, user_id, acknowledged_at)
      VALUES (${target.postId}, ${target.userId}, ${now})
      ON CONFLICT (post_id, user_id) DO UPDATE SET acknowledged_at = EXCLUDED.acknowledged_at
      RETURNING post_id, user_id, acknowledged_at`
    yield* sql`UPDATE posts SET update_at = ${now} WHERE id = ${target.postId}`
    return saved
  }))
  const ack = toWire(row)
  yield* publish("post_acknowledgement_added", ack, target.channelId)
  return json(ack)
})

const unacknowledge = Effect.gen(function*() {
  const caller = yield* requireCaller
  const target = yield* acknowledgeable(caller, "api.acknowledgement.delete.archived_channel.app_error")
  const db = yield* Db
  const sql = db.sql
  const now = yield* Clock.currentTimeMillis
  const removed = yield* db.transaction(Effect.gen(function*() {
    const [existing] = yield* sql<AckRow>`
      SELECT post_id, user_id, acknowledged_at FROM post_acknowledgements
      WHERE post_id = ${target.postId} AND user_id = ${target.userId} FOR UPDATE`
    if (existing === undefined) {
      return yield* notFound("app.acknowledgement.get.app_error", "Unable to get the acknowledgement.")
    }
    if (now - Number(existing.acknowledged_at) > REMOVE_DEADLINE_MS) {
      return yield* forbidden("api.acknowledgement.delete.deadline.app_error", "You cannot remove an acknowledgement after 5 minutes.")
    }
    yield* sql`DELETE FROM post_acknowledgements WHERE post_id = ${target.postId} AND user_id = ${target.userId}`
    yield* sql`UPDATE posts SET update_at = ${now} WHERE id = ${target.postId}`
    return existing
  }))
  yield* publish("post_acknowledgement_removed", toWire(removed), target.channelId)
  return ok()
})

export const routes = HttpRouter.empty.pipe(
  HttpRouter.post("/api/v4/users/:user_id/posts/:post_id/ack", acknowledge),
  HttpRouter.del("/api/v4/users/:user_id/posts/:post_id/ack", unacknowledge)
)
