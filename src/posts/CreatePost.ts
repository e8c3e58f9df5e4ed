import { Clock, Effect, Option, Schema } from "effect"
import { anyText } from "../../layers/SqlArrays.ts"
import { Db } from "../../layers/Db.ts"
import { newId } from "../../layers/Crypto.ts"
import { IdRow, Int8, JsonObject, rows } from "../../layers/Rows.ts"
import { type Invalid, invalid, notFound } from "../../schemas/Errors.ts"
import { DomainEvent, eventPost } from "../../schemas/Events.ts"
import { Access, type ChannelRef } from "../access/Access.ts"
import type { Caller } from "../auth/Authenticate.ts"
import { EventBus } from "../events/EventBus.ts"
import { withActionIds } from "../integrations/MessageActions.ts"
import { publishThreadUpdated } from "../threads/ThreadEvents.ts"
import { type Follower, ThreadRepo } from "../threads/ThreadRepo.ts"
import { findMentions } from "./Mentions.ts"
import { hashtags, mentionTokens, MESSAGE_MAX_RUNES, runeLength } from "./MessageText.ts"
import { checkPriority, isNone as noPriority, MetadataInput } from "./PostPriority.ts"
import { publishEphemeral } from "./EphemeralPost.ts"
import { PostRepo } from "./PostRepo.ts"
import * as PendingPostIds from "./PendingPostIds.ts"
import { DUPLICATE, writeRootPost } from "./RootPostBatch.ts"
import { type PostJson, type PostRow, toWire } from "./PostWire.ts"
import { ID_PATTERN } from "../../schemas/Params.ts"
import { need } from "../access/Permission.ts"
import { RoleStore, type RoleSnapshot } from "../system/RoleStore.ts"

/** The body of POST /posts; clients send a whole Post, of which these fields are read (user_id is the caller). */
export const CreatePostBody = Schema.Struct({
  channel_id: Schema.String,
  message: Schema.optionalWith(Schema.String, { default: () => "" }),
  root_id: Schema.optionalWith(Schema.String, { default: () => "" }),
  file_ids: Schema.optionalWith(Schema.Array(Schema.String), { default: () => [] }),
  props: Schema.optionalWith(Schema.Record({ key: Schema.String, value: Schema.Unknown }), { default: () => ({}) }),
  pending_post_id: Schema.optionalWith(Schema.String, { default: () => "" }),
  type: Schema.optionalWith(Schema.String, { default: () => "" }),
  metadata: Schema.optional(Schema.NullOr(MetadataInput))
})
export type CreatePostBody = typeof CreatePostBody.Type

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)
const optionalString = (value: unknown) => value === undefined ? "" : typeof value === "string" ? value : undefined

/**
 * `CreatePostBody`'s decode of the common body (parsed JSON: strings, an array of strings, a props object, no
 * metadata) by hand, about 3% of a POST /posts through the Schema (issue 10); undefined for anything else, which
 * the Schema then decodes (and refuses) as before. The result is the Schema's: defaults for absent fields, other
 * keys dropped, props and file_ids copied.
 */
export const quickCreatePostBody = (raw: unknown): CreatePostBody | undefined => {
  if (!isPlainObject(raw) || typeof raw.channel_id !== "string") return undefined
  const message = optionalString(raw.message)
  const root_id = optionalString(raw.root_id)
  const pending_post_id = optionalString(raw.pending_post_id)
  const type = optionalString(raw.type)
  if (message === undefined || root_id === undefined || pending_post_id === undefined || type === undefined) return undefined
  if (raw.metadata !== undefined) return undefined
  let file_ids: Array<string> = []
  if (raw.file_ids !== undefined) {
    if (!Array.isArray(raw.file_ids) || !raw.file_ids.every((f) => typeof f === "string")) return undefined
    file_ids = [...raw.file_ids]
  }
  let props: Record<string, unknown> = {}
  if (raw.props !== undefined) {
    // An own "__proto__" key (JSON.parse makes one) is left to the Schema.
    if (!isPlainObject(raw.props) || Object.hasOwn(raw.props, "__proto__")) return undefined
    props = { ...raw.props }
  }
  return { channel_id: raw.channel_id, message, root_id, file_ids, props, pending_post_id, type }
}

const FILE_IDS_MAX = 10
const PENDING_ID_MAX = 64
const PROPS_MAX_CHARS = 800_000

export const invalidMessageLength = () =>
  invalid("model.post.is_valid.message_length.app_error", `Invalid Message property: longer than ${MESSAGE_MAX_RUNES} characters.`)

const invalidRoot = () => invalid("api.post.create_post.root_id.app_error", "Invalid RootId parameter.")

const ID = ID_PATTERN

/**
 * Checks that need no database: the 400 that refuses the post before anything is written, or undefined. Plain code
 * (no effect), as it runs on every post.
 */
const refusal = (input: CreatePostBody): Invalid | undefined => {
  if (!ID.test(input.channel_id)) return invalid("model.post.is_valid.channel_id.app_error", "Invalid channel id.")
  if (input.root_id !== "" && !ID.test(input.root_id)) return invalidRoot()
  if (runeLength(input.message) > MESSAGE_MAX_RUNES) return invalidMessageLength()
  if (input.file_ids.length > FILE_IDS_MAX || input.file_ids.some((f) => !ID.test(f))) {
    return invalid("model.post.is_valid.file_ids.app_error", "Invalid file ids.")
  }
  if (input.pending_post_id.length > PENDING_ID_MAX) return invalid("model.post.is_valid.pending_post_id.app_error", "Invalid pending post id.")
  if (input.type !== "") return invalid("api.context.invalid_param.app_error", "Invalid or missing type parameter in request body.")
  if (JSON.stringify(input.props).length > PROPS_MAX_CHARS) return invalid("model.post.is_valid.props.app_error", "Invalid props.")
  if (input.message.trim() === "" && input.file_ids.length === 0 && Object.keys(input.props).length === 0) {
    return invalid("api.context.invalid_param.app_error", "Invalid or missing message parameter in request body.")
  }
  return undefined
}

const Roots = rows("CreatePost root", Schema.Struct({
  channel_id: Schema.String,
  root_id: Schema.String,
  user_id: Schema.String,
  message: Schema.String
}))
const CollapsedThreads = rows("CreatePost collapsed threads", Schema.Struct({ value: Schema.String }))
const Counters = rows("CreatePost counters", Schema.Struct({ at: Int8, total: Int8, total_root: Int8 }))
const AttachedFiles = rows("CreatePost attached files", IdRow)
const Inserted = rows("CreatePost insert", Schema.Struct({
  props: JsonObject,
  hashtags: Schema.String,
  username: Schema.NullOr(Schema.String)
}))
/** Whether the user reads replies in collapsed threads (the server default is on; the preference can turn it off). */
const collapsedThreadsFor = (userId: string) =>
  Effect.gen(function*() {
    const db = yield* Db
    const found = yield* db.read(db.sql`
      SELECT value FROM preferences WHERE user_id = ${userId} AND category = 'display_settings' AND name = 'collapsed_reply_threads'`).pipe(CollapsedThreads)
    return found[0]?.value !== "off"
  })

/**
 * Props only the server sets: from_bot on a bot's posts (its session says so, as in Mattermost), from_webhook on an
 * integration's. A client cannot claim them.
 */
const serverProps = (caller: Caller, props: CreatePostBody["props"]) => {
  // Marks only the server sets: a bot's and an integration's, and a test notification's forced push.
  const { from_bot: _bot, from_webhook: _webhook, force_notification: _forced, ...rest } = props
  return caller.session.props.is_bot === "true" ? { ...rest, from_bot: "true" } : rest
}

/**
 * `trusted`: props the server itself sets (an integration's from_webhook, overrides, attachments). `serverType`: a
 * post type clients may not set themselves but the server may (a slash command's "me" or an integration's custom_*).
 */
export const createPost = (
  caller: Caller,
  body: CreatePostBody,
  setOnline: boolean,
  trusted: Record<string, unknown> = {},
  serverType: "" | "me" | `custom_${string}` = ""
): Effect.Effect<PostJson, Effect.Effect.Error<ReturnType<typeof writeAnyPost>>, Effect.Effect.Context<ReturnType<typeof writeAnyPost>> | RoleStore> =>
  Effect.suspend(() => {
    const given = { ...body, props: withActionIds({ ...serverProps(caller, body.props), ...trusted }) }
    const refused = refusal(given)
    if (refused !== undefined) return Effect.fail(refused)
    const input = serverType === "" ? given : { ...given, type: serverType }
    // A priority (checked below, with its own refusals) takes the general path.
    return input.root_id === "" && input.file_ids.length === 0 && noPriority(input.metadata?.priority) && mentionsNobody(input.message)
      ? Effect.flatMap(RoleStore, (roles) =>
        membersMayPost(roles.current()) ? writePlainRootPost(caller, input, setOnline) : writeAnyPost(caller, input, setOnline))
      : writeAnyPost(caller, input, setOnline)
  })

/**
 * Whether every member of a channel holds create_post by their channel roles (as by default): the one statement of
 * the plain root post then decides by membership, as it does. Otherwise (an administrator took create_post away
 * from channel_user or channel_guest) every post takes the general path, which asks Access's permissions.
 */
const membersMayPost = (roles: RoleSnapshot) =>
  roles.grants(CHANNEL_USER, "create_post") && roles.grants(CHANNEL_GUEST, "create_post")
const CHANNEL_USER = ["channel_user"]
const CHANNEL_GUEST = ["channel_guest"]

/**
 * The most common post, a root post without files, priority or mentions, as a few plain steps around its one statement
 * (issue 10: an `Effect.gen` of a dozen steps cost a visible share of every POST /posts). When the statement's guard
 * does not hold (no such channel, not allowed, a direct or group channel), nothing was written and `writeAnyPost`
 * decides, answering what it always answered.
 */
const writePlainRootPost = (caller: Caller, input: CreatePostBody, setOnline: boolean) =>
  Effect.flatMap(Db, (db) =>
    Effect.clockWith((clock) =>
      Effect.flatMap(
        writeRootPost(db, { id: newId(), now: clock.unsafeCurrentTimeMillis(), caller, channelId: input.channel_id, input, mentioned: [] }, {
          guarded: true
        }),
        (quick) => {
          if (quick === undefined) return writeAnyPost(caller, input, setOnline)
          if (quick === DUPLICATE) return firstPost(caller, input)
          const { channel, ...written } = quick
          const post = toWire(newRootRow({ userId: caller.userId, channelId: channel.id, input, ...written }), { viewer: caller, collapsedThreads: false, extended: false })
          return Effect.as(publishPosted(channel, post, written.username, [], setOnline), post)
        }
      )
    ))

/**
 * Any post, validated: the channel's counters (create_at is strictly increasing per channel), the caller's files
 * attached, the post, the thread and its followers for a reply, the mentioned members' counts and the author's own
 * read state, in one transaction (or `writeRootPost`'s one statement). Events follow the commit.
 */
const writeAnyPost = (caller: Caller, input: CreatePostBody, setOnline: boolean) =>
  Effect.gen(function*() {
    const db = yield* Db
    const access = yield* Access
    const granted = yield* access.channel(caller, input.channel_id, "write")
    const { channel } = granted
    if (channel.delete_at > 0) {
      return yield* invalid("api.post.create_post.can_not_post_to_deleted.error", "Can not post to deleted channel.")
    }
    yield* need(granted, "create_post")
    const sql = db.sql
    const root = input.root_id === ""
      ? undefined
      : (yield* db.read(sql`
          SELECT channel_id, root_id, user_id, message FROM posts WHERE id = ${input.root_id} AND delete_at = 0`).pipe(Roots))[0]
    if (input.root_id !== "" && (root === undefined || root.channel_id !== channel.id || root.root_id !== "")) {
      return yield* invalidRoot()
    }
    const priority = yield* checkPriority(input.metadata?.priority, input.root_id)
    const urgent = priority?.priority === "urgent"
    const mentions = yield* findMentions(db, {
      channel,
      authorId: caller.userId,
      message: input.message,
      root: root === undefined ? undefined : { userId: root.user_id, message: root.message },
      channelMentions: granted.can("use_channel_mentions")
    })
    const isRoot = root === undefined
    const markChannelRead = isRoot || !(yield* collapsedThreadsFor(caller.userId))
    const now = yield* Clock.currentTimeMillis
    const id = newId()
    const threads = yield* ThreadRepo

    // The one-statement path covers the common root post; files or a priority take the transaction below.
    const simpleRoot = isRoot && input.file_ids.length === 0 && priority === undefined
    const written = simpleRoot
      ? yield* Effect.flatMap(
        writeRootPost(db, { id, now, caller, channelId: channel.id, input, mentioned: mentions.mentioned }),
        (row) => row === undefined ? Effect.fail(notFound("app.channel.get.existing.app_error", "Channel not found.")) : Effect.succeed(row)
      )
      : yield* db.transaction(Effect.gen(function*() {
        // The pending id first (PendingPostIds.ts): a retry's transaction ends here, before touching the channel.
        if (input.pending_post_id !== "" && !(yield* PendingPostIds.claim(caller.userId, input.pending_post_id, id, now))) return DUPLICATE
        const [counters] = yield* Counters(sql`
          UPDATE channels SET
            last_post_at = GREATEST(last_post_at + 1, ${now}),
            last_root_post_at = CASE WHEN ${isRoot} THEN GREATEST(last_post_at + 1, ${now}) ELSE last_root_post_at END,
            total_msg_count = total_msg_count + 1,
            total_msg_count_root = total_msg_count_root + CASE WHEN ${isRoot} THEN 1 ELSE 0 END
          WHERE id = ${channel.id}
          RETURNING last_post_at AS at, total_msg_count AS total, total_msg_count_root AS total_root`)
        const createAt = counters.at
        const attached = input.file_ids.length === 0 ? [] : yield* AttachedFiles(sql`
          UPDATE file_infos SET post_id = ${id}, channel_id = ${channel.id}, update_at = ${createAt}
          WHERE id = ANY(${[...input.file_ids]}) AND creator_id = ${caller.userId} AND post_id = '' AND delete_at = 0
            AND (channel_id = ${channel.id} OR channel_id = '')
          RETURNING id`)
        const attachedIds = input.file_ids.filter((f) => attached.some((a) => a.id === f))
        const [inserted] = yield* Inserted(sql`
          INSERT INTO posts (id, create_at, update_at, user_id, channel_id, root_id, message, type, props, hashtags,
                             file_ids, pending_post_id, has_priority)
          VALUES (${id}, ${createAt}, ${createAt}, ${caller.userId}, ${channel.id}, ${input.root_id}, ${input.message},
                  ${input.type}, ${JSON.stringify(input.props)}::jsonb, ${hashtags(input.message)},
                  ${JSON.stringify(attachedIds)}::jsonb, ${input.pending_post_id}, ${priority !== undefined})
          RETURNING props, hashtags, (SELECT username FROM users WHERE id = ${caller.userId}) AS username`)
        if (priority !== undefined) {
          yield* sql`
            INSERT INTO post_priority (post_id, channel_id, priority, requested_ack, persistent_notifications)
            VALUES (${id}, ${channel.id}, ${priority.priority}, ${priority.requested_ack}, ${priority.persistent_notifications})`
        }
        if (!isRoot) {
          const followers: Array<Follower> = [{ userId: caller.userId, mentioned: false }]
          if (mentions.rootAuthorIsMember && root.user_id !== caller.userId) followers.push({ userId: root.user_id, mentioned: false })
          for (const m of mentions.rootMentioned) followers.push({ userId: m, mentioned: false })
          for (const m of mentions.mentioned) followers.push({ userId: m, mentioned: true })
          const unique = [...new Map(followers.map((f) => [f.userId, f])).values()]
          yield* threads.recordReply({ rootId: input.root_id, channelId: channel.id, authorId: caller.userId, createAt, followers: unique })
        }
        if (mentions.mentioned.length > 0) {
          // anyText: one plan kept however many are mentioned.
          yield* sql`
            UPDATE channel_members SET mention_count = mention_count + 1,
              mention_count_root = mention_count_root + CASE WHEN ${isRoot} THEN 1 ELSE 0 END,
              urgent_mention_count = urgent_mention_count + CASE WHEN ${urgent} THEN 1 ELSE 0 END, last_update_at = ${now}
            WHERE channel_id = ${channel.id} AND user_id = ${anyText(sql, mentions.mentioned)}`
        }
        if (markChannelRead) {
          yield* sql`
            UPDATE channel_members SET last_viewed_at = ${createAt}, msg_count = ${counters.total},
              msg_count_root = ${counters.total_root}, mention_count = 0, mention_count_root = 0, urgent_mention_count = 0,
              last_update_at = ${now}
            WHERE channel_id = ${channel.id} AND user_id = ${caller.userId}`
        }
        return { username: inserted.username ?? "", createAt, props: inserted.props, hashtags: inserted.hashtags }
      }))
    // A retry (the transaction above wrote nothing): the first post, without a second event.
    if (written === DUPLICATE) return yield* firstPost(caller, input)

    // A new root post without files has nothing to gather yet (no thread, reactions, files or acknowledgements): it
    // is built from what was written, one query fewer before its event goes out. Anything else is read back whole.
    const post = simpleRoot
      ? toWire(newRootRow({ id, userId: caller.userId, channelId: channel.id, input, ...written }), { viewer: caller, collapsedThreads: false, extended: false })
      : (yield* (yield* PostRepo).hydrate([id], { viewer: caller, collapsedThreads: false, extended: false }))[0]
    yield* publishPosted(channel, post, written.username, mentions.mentioned, setOnline)
    if (!isRoot) yield* publishThreadUpdated(input.root_id, { authorId: caller.userId, mentioned: new Set(mentions.mentioned) })
    if (mentions.notInChannel.length > 0) yield* publishNotInChannel(caller.userId, post, mentions.notInChannel)
    return post
  })

/**
 * The answer to a retry: the post its pending id was claimed for (PendingPostIds.ts), as its author sees it, and no
 * event, notification or counter of its own. A post deleted since is not found.
 */
const firstPost = (caller: Caller, input: CreatePostBody) =>
  Effect.gen(function*() {
    const postId = yield* PendingPostIds.postOf(caller.userId, input.pending_post_id)
    const [post] = Option.isNone(postId)
      ? []
      : yield* (yield* PostRepo).hydrate([postId.value], { viewer: caller, collapsedThreads: false, extended: false })
    if (post === undefined || Number(post.delete_at) > 0) return yield* notFound("app.post.get.app_error", "Post not found.")
    return post
  })

interface Written {
  readonly username: string
  readonly createAt: number
  readonly props: Record<string, unknown>
  readonly hashtags: string
}

/** A message that names nobody (no @name, @channel, @all or @here): outside direct and group channels, nobody is mentioned. */
const mentionsNobody = (message: string) => {
  const tokens = mentionTokens(message)
  return tokens.usernames.size === 0 && !tokens.channel && !tokens.all && !tokens.here
}

/** The row the hydrating query would return for a root post just written without files. */
export const newRootRow = (post: {
  readonly id: string
  readonly userId: string
  readonly channelId: string
  readonly input: CreatePostBody
  readonly createAt: number
  readonly props: Record<string, unknown>
  readonly hashtags: string
}): PostRow => ({
  id: post.id,
  create_at: post.createAt,
  update_at: post.createAt,
  edit_at: 0,
  delete_at: 0,
  is_pinned: false,
  user_id: post.userId,
  channel_id: post.channelId,
  root_id: "",
  original_id: "",
  message: post.input.message,
  type: post.input.type,
  props: post.props,
  hashtags: post.hashtags,
  file_ids: [],
  pending_post_id: post.input.pending_post_id,
  has_reactions: false,
  reply_count: 0,
  last_reply_at: null,
  participants: null,
  is_following: null,
  reactions: [],
  emojis: [],
  files: [],
  acknowledgements: [],
  participant_users: null,
  priority: null
})

export const publishPosted = (channel: ChannelRef, post: PostJson, username: string, mentioned: ReadonlyArray<string>, setOnline: boolean) =>
  Effect.flatMap(EventBus, (bus) =>
    bus.publish(DomainEvent.Posted({ post: eventPost(post), channel, senderName: username, setOnline, mentions: mentioned }), { channel_id: channel.id }))

/** The ephemeral notice Mattermost shows the author when named users are on the team but not in the channel. */
const publishNotInChannel = (
  authorId: string,
  post: PostJson,
  users: ReadonlyArray<{ readonly id: string; readonly username: string }>
) => {
  const names = users.map((u) => u.username)
  const message = names.length === 1
    ? `@${names[0]} did not get notified by this mention because they are not in the channel.`
    : `@${names.slice(0, -1).join(", @")} and @${names[names.length - 1]} did not get notified by this mention because they are not in the channel.`
  const ephemeralId = newId()
  return Effect.asVoid(publishEphemeral({
    id: ephemeralId,
    createAt: Number(post.create_at) + 1,
    userId: authorId,
    channelId: String(post.channel_id),
    rootId: String(post.root_id),
    message,
    props: {
      add_channel_member: {
        post_id: ephemeralId,
        usernames: names,
        not_in_channel_usernames: names,
        user_ids: users.map((u) => u.id),
        not_in_channel_user_ids: users.map((u) => u.id),
        not_in_groups_usernames: [],
        not_in_groups_user_ids: []
      }
    }
  }))
}
