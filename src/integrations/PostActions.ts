import { Clock, Effect, Schema } from "effect"
import { Crypto, newId } from "../../layers/Crypto.ts"
import { Db } from "../../layers/Db.ts"
import { IdRow, JsonObject, rows } from "../../layers/Rows.ts"
import { Invalid, invalid, notFound } from "../../schemas/Errors.ts"
import { DomainEvent } from "../../schemas/Events.ts"
import { issueTriggerId } from "./TriggerId.ts"
import { OutboundHttp } from "../../layers/OutboundHttp.ts"
import { Access, type ChannelRef } from "../access/Access.ts"
import type { Caller } from "../auth/Authenticate.ts"
import { EventBus } from "../events/EventBus.ts"
import { hashtags, MESSAGE_MAX_RUNES, runeLength } from "../posts/MessageText.ts"
import { editPost } from "../posts/PostWriteRepo.ts"
import { PostRepo } from "../posts/PostRepo.ts"
import { slackLinksToMarkdown } from "../webhooks/SlackText.ts"
import { actionsOf, findAction, type StoredAction, withActionIds, withoutIntegrations } from "./MessageActions.ts"

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
  goto_location: Schema.optionalWith(Schema.String, { default: () => "" }),
  skip_slack_parsing: Schema.optionalWith(Schema.Boolean, { default: () => false })
})
const decodeAnswer = Schema.decodeUnknownEither(IntegrationAnswer)

/** Props an update keeps from the original post whatever the integration sends (PostActionRetainPropKeys). */
const RETAINED = ["from_webhook", "override_username", "override_icon_url", "from_bot"] as const

const ACTION_TIMEOUT = "10 seconds"

/**
 * The reason goes to detailed_error only: the user who clicked is told the action failed, not where it goes. A 400,
 * as Mattermost answers it (not the 502 of a failed slash command), so it is `Invalid` with the detail kept.
 */
const integrationError = (detail: string) =>
  new Invalid({ id: "api.post.do_action.action_integration.app_error", message: "Action integration error.", detailed: detail })

const StoredPost = Schema.Struct({ channel_id: Schema.String, root_id: Schema.String, message: Schema.String, props: JsonObject })
type StoredPost = typeof StoredPost.Type
const StoredPosts = rows("PostActions post", StoredPost)
const PostIds = rows("PostActions post exists", IdRow)
const Names = rows("PostActions names", Schema.Struct({ username: Schema.String, team_name: Schema.NullOr(Schema.String) }))

/** The retained keys the post has, and those it lacks (an update removes them: the integration cannot add them). */
const retainedOf = (props: Readonly<Record<string, unknown>>) => ({
  retain: Object.fromEntries(RETAINED.filter((k) => k in props).map((k) => [k, props[k]])),
  remove: RETAINED.filter((k) => !(k in props))
})

/** The props of an update: the integration's, with the retained keys as they were on the original (or absent). */
export const updatedProps = (original: Readonly<Record<string, unknown>>, sent: Readonly<Record<string, unknown>> | null) => {
  if (sent === null) return original
  const { retain, remove } = retainedOf(original)
  const props: Record<string, unknown> = { ...sent, ...retain }
  for (const key of remove) delete props[key]
  return withActionIds(props)
}

/** What a click acts on: the action, where its post is, and the post itself unless it is not stored (ephemeral). */
interface Target {
  readonly channel: ChannelRef
  readonly action: StoredAction
  readonly rootId: string
  readonly retain: Readonly<Record<string, unknown>>
  readonly stored: StoredPost | undefined
}

/**
 * Mattermost's PostActionCookie: what a click on an action of a post the server does not keep (an ephemeral post)
 * needs, encrypted under the server's key and sent to the client as the action's `cookie`.
 */
const ActionCookie = Schema.Struct({
  type: Schema.String,
  post_id: Schema.String,
  root_post_id: Schema.String,
  channel_id: Schema.String,
  data_source: Schema.String,
  integration: Schema.Struct({ url: Schema.String, context: Schema.optionalWith(Schema.Record({ key: Schema.String, value: Schema.Unknown }), { default: () => ({}) }) }),
  retain_props: Schema.Record({ key: Schema.String, value: Schema.Unknown })
})
const decodeCookie = Schema.decodeUnknownEither(Schema.parseJson(ActionCookie))

/**
 * For a post sent without being stored (an ephemeral post with buttons): each action gets an id and a cookie
 * carrying its integration, which leaves the props (Mattermost's AddPostActionCookies). A click sends the cookie back.
 */
export const withActionCookies = <P extends { readonly id: string; readonly channel_id: string; readonly root_id: string; readonly props: Readonly<Record<string, unknown>> }>(post: P) =>
  Effect.gen(function*() {
    const crypto = yield* Crypto
    const props = withActionIds(post.props)
    const { retain } = retainedOf(props)
    const cookies = new Map<string, string>()
    for (const action of actionsOf(props)) {
      const cookie = {
        type: action.type,
        post_id: post.id,
        root_post_id: post.root_id === "" ? post.id : post.root_id,
        channel_id: post.channel_id,
        data_source: action.dataSource,
        integration: { url: action.url, context: action.context },
        retain_props: retain
      }
      cookies.set(action.id, yield* crypto.encrypt(JSON.stringify(cookie)))
    }
    return { ...post, props: withoutIntegrations(props, (id) => cookies.get(id)) }
  })

const storedTarget = (caller: Caller, postId: string, actionId: string) =>
  Effect.gen(function*() {
    const { channel } = yield* Effect.flatMap(Access, (a) => a.post(caller, postId, "read"))
    const db = yield* Db
    const [post] = yield* db.read(db.sql`
      SELECT channel_id, root_id, message, props FROM posts WHERE id = ${postId} AND delete_at = 0`.pipe(StoredPosts))
    if (post === undefined) return yield* notFound("app.post.get.app_error", "Post not found.")
    const action = findAction(post.props, actionId)
    if (action === undefined) return yield* notFound("api.post.do_action.action_id.app_error", "The post has no such action.")
    if (channel.delete_at > 0) {
      return yield* invalid("api.post.update_post.can_not_update_post_in_deleted.error", "Can not update a post in a deleted channel.")
    }
    return { channel, action, rootId: post.root_id === "" ? postId : post.root_id, retain: retainedOf(post.props).retain, stored: post } satisfies Target
  })

const cookieTarget = (caller: Caller, postId: string, actionId: string, cookie: string) =>
  Effect.gen(function*() {
    const text = yield* Effect.flatMap(Crypto, (c) => c.decrypt(cookie)).pipe(Effect.mapError(() => integrationError("the action's cookie is not valid")))
    const decoded = decodeCookie(text)
    if (decoded._tag === "Left" || decoded.right.post_id !== postId) return yield* integrationError("the action's cookie is not valid for this post")
    const c = decoded.right
    const { channel } = yield* Effect.flatMap(Access, (a) => a.channel(caller, c.channel_id, "read"))
    const action: StoredAction = { id: actionId, type: c.type, dataSource: c.data_source, url: c.integration.url, context: c.integration.context }
    return { channel, action, rootId: c.root_post_id, retain: c.retain_props, stored: undefined } satisfies Target
  })

/** As Mattermost: a stored post is acted on as stored, whatever the cookie says; the cookie serves only for the others. */
const targetOf = (caller: Caller, postId: string, actionId: string, cookie: string) =>
  Effect.gen(function*() {
    const db = yield* Db
    const exists = (yield* db.read(db.sql`SELECT id FROM posts WHERE id = ${postId}`.pipe(PostIds))).length > 0
    return exists || cookie === "" ? yield* storedTarget(caller, postId, actionId) : yield* cookieTarget(caller, postId, actionId, cookie)
  })

export const doPostAction = (caller: Caller, postId: string, actionId: string, selectedOption: string, cookie: string) =>
  Effect.gen(function*() {
    const { channel, action, rootId, retain, stored } = yield* targetOf(caller, postId, actionId, cookie)
    const db = yield* Db
    const [names] = yield* db.read(db.sql`
      SELECT u.username, (SELECT name FROM teams WHERE id = ${channel.team_id}) AS team_name FROM users u WHERE u.id = ${caller.userId}`.pipe(Names))
    const selected = action.type === "select" && selectedOption !== ""
    // As Mattermost: the integration may open an interactive dialog with trigger_id; the client learns its own half.
    const trigger = yield* issueTriggerId(caller.userId)
    const request = {
      user_id: caller.userId,
      user_name: names?.username ?? "",
      channel_id: channel.id,
      channel_name: channel.name,
      team_id: channel.team_id,
      team_domain: names?.team_name ?? "",
      post_id: postId,
      trigger_id: trigger.triggerId,
      type: action.type,
      data_source: selected ? action.dataSource : "",
      context: selected ? { ...action.context, selected_option: selectedOption } : action.context
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
    // A post that is not stored (ephemeral) has nothing to update.
    if (update !== null && stored !== undefined) yield* applyUpdate(caller, postId, stored, update)
    if (ephemeral_text !== "") yield* sendEphemeral(caller.userId, channel.id, rootId, retain, answer.right.skip_slack_parsing ? ephemeral_text : slackLinksToMarkdown(ephemeral_text))
    return { status: "OK", trigger_id: trigger.clientTriggerId, goto_location }
  })

/** Replaces the post's message and props (Mattermost's UpdatePost without safe update), then post_edited. */
const applyUpdate = (caller: Caller, postId: string, post: StoredPost, update: { readonly message: string; readonly props: Record<string, unknown> | null }) =>
  Effect.gen(function*() {
    if (runeLength(update.message) > MESSAGE_MAX_RUNES) return yield* integrationError("the updated message is too long")
    const props = updatedProps(post.props, update.props)
    // The same write as an edit through the API: the previous version kept in the same transaction.
    yield* editPost(postId, { message: update.message, props }, yield* Clock.currentTimeMillis)
    const [edited] = yield* Effect.flatMap(PostRepo, (r) => r.hydrate([postId], { viewer: caller, collapsedThreads: false, extended: false }))
    if (edited === undefined) return
    yield* Effect.flatMap(EventBus, (bus) => bus.publish(DomainEvent.PostEdited({ post: edited }), { channel_id: post.channel_id }))
  })

/** Only the clicking user sees it, in the post's thread; it keeps the post's webhook marks, as Mattermost. */
const sendEphemeral = (userId: string, channelId: string, rootId: string, props: Readonly<Record<string, unknown>>, message: string) =>
  Effect.gen(function*() {
    const now = yield* Clock.currentTimeMillis
    const ephemeral = {
      id: newId(),
      create_at: now,
      update_at: now,
      edit_at: 0,
      delete_at: 0,
      is_pinned: false,
      user_id: userId,
      channel_id: channelId,
      root_id: rootId,
      original_id: "",
      message,
      type: "system_ephemeral",
      props,
      hashtags: "",
      pending_post_id: "",
      reply_count: 0,
      metadata: { embeds: [], emojis: [], files: [], images: {}, reactions: [] }
    }
    yield* Effect.flatMap(EventBus, (bus) => bus.publish(DomainEvent.EphemeralMessage({ post: ephemeral }), { user_id: userId }))
  })
