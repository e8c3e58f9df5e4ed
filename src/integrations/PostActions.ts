import { Clock, Effect, Schema } from "effect"
import { newId } from "../../layers/Crypto.ts"
import { Db } from "../../layers/Db.ts"
import { OutboundHttp } from "../../layers/OutboundHttp.ts"
import { Access } from "../access/Access.ts"
import type { Caller } from "../auth/Authenticate.ts"
import { EventBus } from "../events/EventBus.ts"
import { badRequest, notFound } from "../http/ApiError.ts"
import { hashtags, MESSAGE_MAX_RUNES, runeLength } from "../posts/MessageText.ts"
import { PostHistoryRepo } from "../posts/PostHistoryRepo.ts"
import { PostRepo } from "../posts/PostRepo.ts"
import { findAction, withActionIds } from "./MessageActions.ts"

/**
 * POST /posts/{post_id}/actions/{action_id}: a user clicked a button or chose an option of an interactive message.
 * As Mattermost's DoPostActionWithCookie: the action's integration URL gets a PostActionIntegrationRequest (with the
 * integration's context, and the selected option for a select), through OutboundHttp; its answer may replace the
 * post (`update`), show the user an ephemeral message (`ephemeral_text`), and send the client somewhere
 * (`goto_location`).
 */

/** Mattermost's PostActionIntegrationResponse; unknown fields are ignored. */
const IntegrationAnswer = Schema.Struct({
  update: Schema.optionalWith(Schema.NullOr(Schema.Struct({
    message: Schema.optionalWith(Schema.String, { default: () => "" }),
    props: Schema.optionalWith(Schema.NullOr(Schema.Record({ key: Schema.String, value: Schema.Unknown })), { default: () => null })
  })), { default: () => null }),
  ephemeral_text: Schema.optionalWith(Schema.String, { default: () => "" }),
  goto_location: Schema.optionalWith(Schema.String, { default: () => "" })
})
const decodeAnswer = Schema.decodeUnknownEither(IntegrationAnswer)

/** Props an update keeps from the original post whatever the integration sends (PostActionRetainPropKeys). */
const RETAINED = ["from_webhook", "override_username", "override_icon_url", "from_bot"] as const

const ACTION_TIMEOUT = "10 seconds"

const integrationError = (detail: string) =>
  badRequest("api.post.do_action.action_integration.app_error", `The action's integration could not be reached or refused the action: ${detail}.`)

interface StoredPost {
  readonly channel_id: string
  readonly root_id: string
  readonly message: string
  readonly props: Record<string, unknown>
}

/** The props of an update: the integration's, with the retained keys as they were on the original (or absent). */
export const updatedProps = (original: Readonly<Record<string, unknown>>, sent: Readonly<Record<string, unknown>> | null) => {
  if (sent === null) return original
  const props: Record<string, unknown> = { ...sent }
  for (const key of RETAINED) {
    if (key in original) props[key] = original[key]
    else delete props[key]
  }
  return withActionIds(props)
}

export const doPostAction = (caller: Caller, postId: string, actionId: string, selectedOption: string) =>
  Effect.gen(function*() {
    const { channel } = yield* Effect.flatMap(Access, (a) => a.post(caller, postId, "read"))
    const db = yield* Db
    const sql = db.sql
    const [post] = yield* db.read(sql<StoredPost>`
      SELECT channel_id, root_id, message, props FROM posts WHERE id = ${postId} AND delete_at = 0`)
    if (post === undefined) return yield* notFound("app.post.get.app_error", "Post not found.")
    const action = findAction(post.props ?? {}, actionId)
    if (action === undefined) return yield* notFound("api.post.do_action.action_id.app_error", "The post has no such action.")
    if (channel.delete_at > 0) {
      return yield* badRequest("api.post.update_post.can_not_update_post_in_deleted.error", "Can not update a post in a deleted channel.")
    }
    const [names] = yield* db.read(sql<{ username: string; team_name: string | null }>`
      SELECT u.username, (SELECT name FROM teams WHERE id = ${channel.team_id}) AS team_name FROM users u WHERE u.id = ${caller.userId}`)
    const context = action.type === "select" && selectedOption !== "" ? { ...action.context, selected_option: selectedOption } : action.context
    const request = {
      user_id: caller.userId,
      user_name: names?.username ?? "",
      channel_id: channel.id,
      channel_name: channel.name,
      team_id: channel.team_id,
      team_domain: names?.team_name ?? "",
      post_id: postId,
      type: action.type,
      data_source: action.type === "select" && selectedOption !== "" ? action.dataSource : "",
      context
    }
    const http = yield* OutboundHttp
    const response = yield* http.request({
      url: action.url,
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify(request),
      timeout: ACTION_TIMEOUT
    }).pipe(Effect.mapError((e) => integrationError(e.message)))
    if (response.status !== 200) return yield* integrationError(`status ${response.status}`)
    let parsed: unknown = {}
    if (response.body.trim() !== "") {
      try {
        parsed = JSON.parse(response.body)
      } catch {
        return yield* integrationError("the answer is not JSON")
      }
    }
    const answer = decodeAnswer(parsed)
    if (answer._tag === "Left") return yield* integrationError("the answer is not an action response")
    const { update, ephemeral_text, goto_location } = answer.right
    if (update !== null) yield* applyUpdate(caller, postId, post, update)
    if (ephemeral_text !== "") yield* sendEphemeral(caller.userId, post, postId, ephemeral_text)
    return { status: "OK", goto_location }
  })

/** Replaces the post's message and props (Mattermost's UpdatePost without safe update), then post_edited. */
const applyUpdate = (caller: Caller, postId: string, post: StoredPost, update: { readonly message: string; readonly props: Record<string, unknown> | null }) =>
  Effect.gen(function*() {
    if (runeLength(update.message) > MESSAGE_MAX_RUNES) return yield* integrationError("the updated message is too long")
    const db = yield* Db
    const sql = db.sql
    const history = yield* PostHistoryRepo
    const now = yield* Clock.currentTimeMillis
    const props = updatedProps(post.props ?? {}, update.props)
    yield* db.transaction(Effect.gen(function*() {
      yield* history.keepPrevious(sql, postId, update.message, now)
      yield* sql`
        UPDATE posts SET update_at = ${now},
          edit_at = CASE WHEN message <> ${update.message} THEN ${now}::bigint ELSE edit_at END,
          message = ${update.message}, hashtags = ${hashtags(update.message)}, props = ${JSON.stringify(props)}::jsonb
        WHERE id = ${postId} AND delete_at = 0`
    }))
    const [edited] = yield* Effect.flatMap(PostRepo, (r) => r.hydrate([postId], { viewer: caller, collapsedThreads: false, extended: false }))
    if (edited === undefined) return
    yield* Effect.flatMap(EventBus, (bus) => bus.publish("post_edited", { post: JSON.stringify(edited) }, { channel_id: post.channel_id }))
  })

/** Only the clicking user sees it, in the post's thread; it keeps the post's webhook marks, as Mattermost. */
const sendEphemeral = (userId: string, post: StoredPost, postId: string, message: string) =>
  Effect.gen(function*() {
    const now = yield* Clock.currentTimeMillis
    const props = Object.fromEntries(RETAINED.filter((k) => k in (post.props ?? {})).map((k) => [k, post.props[k]]))
    const ephemeral = {
      id: newId(),
      create_at: now,
      update_at: now,
      edit_at: 0,
      delete_at: 0,
      is_pinned: false,
      user_id: userId,
      channel_id: post.channel_id,
      root_id: post.root_id === "" ? postId : post.root_id,
      original_id: "",
      message,
      type: "system_ephemeral",
      props,
      hashtags: "",
      pending_post_id: "",
      reply_count: 0,
      metadata: { embeds: [], emojis: [], files: [], images: {}, reactions: [] }
    }
    yield* Effect.flatMap(EventBus, (bus) => bus.publish("ephemeral_message", { post: JSON.stringify(ephemeral) }, { user_id: userId }))
  })
