import type { SqlClient } from "@effect/sql"
import { Clock, Effect, Schema } from "effect"
import { Db } from "../../layers/Db.ts"
import { newId } from "../../layers/Crypto.ts"
import { Int8, rows } from "../../layers/Rows.ts"
import type { ChannelRef } from "../access/Access.ts"
import type { EventBus } from "../events/EventBus.ts"
import { siteSwitches } from "../system/ServerSettings.ts"
import { publishThreadUpdated } from "../threads/ThreadEvents.ts"
import { ThreadRepo } from "../threads/ThreadRepo.ts"
import { newRootRow, publishPosted } from "./CreatePost.ts"
import { PostRepo } from "./PostRepo.ts"
import { toWire } from "./PostWire.ts"

/**
 * Mattermost's system posts (server/channels/app/channel.go and team.go): written by the server in a channel when
 * someone joins, leaves, is added or removed, or changes its header, purpose, name, privacy or archive state, with
 * Mattermost's type, message and props, by the acting user, and when a channel moves to another team. They go out as
 * any post (`posted`) so clients show them live. The one mention is Mattermost's implicit one: the user a
 * system_add_to_channel adds counts it (mention counts, the event's `mentions`); push and email skip system_* posts.
 * Join/leave posts do not count in the channel's total_msg_count (Mattermost's post store skips
 * IsJoinLeaveMessage()), so they never make a channel unread; the others do.
 *
 * A system post failing to be written never fails the action it reports (Mattermost posts most of them in a
 * goroutine and only logs the error).
 */

/** Mattermost's IsJoinLeaveMessage() types. */
const JOIN_LEAVE = new Set([
  "system_join_leave",
  "system_join_channel",
  "system_leave_channel",
  "system_join_team",
  "system_leave_team",
  "system_add_to_channel",
  "system_remove_from_channel",
  "system_add_to_team",
  "system_remove_from_team"
])

export const DEFAULT_CHANNEL = "town-square"

const Counters = rows("SystemPosts counters", Schema.Struct({ at: Int8 }))
const Users = rows("SystemPosts users", Schema.Struct({ id: Schema.String, username: Schema.String, roles: Schema.String }))
const Channels = rows("SystemPosts channel", Schema.Struct({
  id: Schema.String,
  team_id: Schema.String,
  type: Schema.String,
  name: Schema.String,
  display_name: Schema.String,
  delete_at: Int8
}))

interface SystemPost {
  readonly channel: ChannelRef
  readonly userId: string
  readonly type: string
  readonly message: string
  readonly props: Record<string, unknown>
  /** Users who count it as a mention (only the added user of system_add_to_channel). */
  readonly mentioned?: ReadonlyArray<string>
}

/**
 * The post, the channel's counters and the mentioned members' counts, in the caller's transaction; the post's
 * create_at, or nothing when the channel is gone. A reply (`rootId`) moves neither the channel's root counters nor
 * the mentioned members' root mention counts, as any reply.
 */
const insert = (sql: SqlClient.SqlClient, post: SystemPost, id: string, now: number, rootId: string) =>
  Effect.gen(function*() {
    const counted = JOIN_LEAVE.has(post.type) ? 0 : 1
    const isRoot = rootId === ""
    const mentioned = post.mentioned ?? []
    const [counters] = yield* Counters(sql`
      UPDATE channels SET
        last_post_at = GREATEST(last_post_at + 1, ${now}),
        last_root_post_at = CASE WHEN ${isRoot} THEN GREATEST(last_post_at + 1, ${now}) ELSE last_root_post_at END,
        total_msg_count = total_msg_count + ${counted},
        total_msg_count_root = total_msg_count_root + CASE WHEN ${isRoot} THEN ${counted} ELSE 0 END
      WHERE id = ${post.channel.id}
      RETURNING last_post_at AS at`)
    if (counters === undefined) return undefined
    yield* sql`
      INSERT INTO posts (id, create_at, update_at, user_id, channel_id, root_id, message, type, props, hashtags,
                         file_ids, pending_post_id)
      VALUES (${id}, ${counters.at}, ${counters.at}, ${post.userId}, ${post.channel.id}, ${rootId}, ${post.message},
              ${post.type}, ${JSON.stringify(post.props)}::jsonb, '', '[]'::jsonb, '')`
    if (mentioned.length > 0) {
      yield* sql`
        UPDATE channel_members SET mention_count = mention_count + 1,
          mention_count_root = mention_count_root + CASE WHEN ${isRoot} THEN 1 ELSE 0 END, last_update_at = ${now}
        WHERE channel_id = ${post.channel.id} AND user_id = ANY(${[...mentioned]})`
    }
    return counters.at
  })

const write = (post: SystemPost) =>
  Effect.gen(function*() {
    const db = yield* Db
    const now = yield* Clock.currentTimeMillis
    const id = newId()
    const written = yield* db.transaction(insert(db.sql, post, id, now, ""))
    if (written === undefined) return
    const wire = toWire(newRootRow({
      id,
      userId: post.userId,
      channelId: post.channel.id,
      input: { channel_id: post.channel.id, message: post.message, root_id: "", file_ids: [], props: post.props, pending_post_id: "", type: post.type },
      createAt: written,
      props: post.props,
      hashtags: ""
    }), { viewer: { userId: post.userId, isSystemAdmin: false }, collapsedThreads: false, extended: false })
    const [author] = yield* usersOf([post.userId])
    yield* publishPosted(post.channel, wire, author?.username ?? "", post.mentioned ?? [], false)
  })

/**
 * A system post as a reply in a thread (Mattermost's post_root_id of an add): the thread counts it, its author and
 * the mentioned follow the thread, and followers hear `thread_updated` after the `posted`.
 */
const writeReply = (post: SystemPost, rootId: string) =>
  Effect.gen(function*() {
    const db = yield* Db
    const threads = yield* ThreadRepo
    const now = yield* Clock.currentTimeMillis
    const id = newId()
    const mentioned = post.mentioned ?? []
    const written = yield* db.transaction(Effect.gen(function*() {
      const at = yield* insert(db.sql, post, id, now, rootId)
      if (at === undefined) return undefined
      const followers = [{ userId: post.userId, mentioned: false }, ...mentioned.map((userId) => ({ userId, mentioned: true }))]
      yield* threads.recordReply({ rootId, channelId: post.channel.id, authorId: post.userId, createAt: at, followers })
      return at
    }))
    if (written === undefined) return
    const viewer = { userId: post.userId, isSystemAdmin: false }
    const [wire] = yield* (yield* PostRepo).hydrate([id], { viewer, collapsedThreads: false, extended: false })
    if (wire === undefined) return
    const [author] = yield* usersOf([post.userId])
    yield* publishPosted(post.channel, wire, author?.username ?? "", mentioned, false)
    yield* publishThreadUpdated(rootId, { authorId: post.userId, mentioned: new Set(mentioned) })
  })

const logged = <R>(type: string, effect: Effect.Effect<void, unknown, R>) =>
  effect.pipe(Effect.catchAllCause((cause) => Effect.logWarning("system post not written", cause).pipe(Effect.annotateLogs({ type }))))

const post = (p: SystemPost) => logged(p.type, write(p))

const usersOf = (ids: ReadonlyArray<string>) =>
  Effect.flatMap(Db, (db) => db.read(db.sql`SELECT id, username, roles FROM users WHERE id = ANY(${[...ids]})`).pipe(Users))

const userOf = (id: string) => Effect.map(usersOf([id]), (found) => found[0])

const isGuest = (user: { readonly roles: string }) => user.roles.split(" ").includes("system_guest")

const directOrGroup = (channel: ChannelRef) => channel.type === "D" || channel.type === "G"

/** ServiceSettings.ExperimentalEnableDefaultChannelLeaveJoinMessages, for joins and leaves of Town Square. */
const joinLeaveShown = (channel: ChannelRef) =>
  channel.name !== DEFAULT_CHANNEL ? Effect.succeed(true) : Effect.map(siteSwitches, (s) => s.defaultChannelLeaveJoinMessages)

const ifShown = (channel: ChannelRef, effect: Effect.Effect<void, never, Db | EventBus>) =>
  directOrGroup(channel)
    ? Effect.void
    : Effect.flatMap(Effect.orElseSucceed(joinLeaveShown(channel), () => true), (shown) => shown ? effect : Effect.void)

/** postJoinChannelMessage: "<username> joined the channel." (guests: system_guest_join_channel). */
export const joinedChannel = (channel: ChannelRef, userId: string) =>
  ifShown(channel, Effect.flatMap(Effect.orElseSucceed(userOf(userId), () => undefined), (user) => {
    if (user === undefined) return Effect.void
    const guest = isGuest(user)
    return post({
      channel,
      userId,
      type: guest ? "system_guest_join_channel" : "system_join_channel",
      message: guest ? `${user.username} joined the channel as a guest.` : `${user.username} joined the channel.`,
      props: { username: user.username }
    })
  }))

/** postLeaveChannelMessage: "@<username> left the channel." */
export const leftChannel = (channel: ChannelRef, userId: string) =>
  ifShown(channel, Effect.flatMap(Effect.orElseSucceed(userOf(userId), () => undefined), (user) =>
    user === undefined ? Effect.void : post({
      channel,
      userId,
      type: "system_leave_channel",
      message: `@${user.username} left the channel.`,
      props: { username: user.username }
    })))

type Named = { readonly id: string; readonly username: string; readonly roles: string }

/**
 * PostAddToChannelMessage: "<added> added to the channel by <actor>." (guests: system_add_guest_to_chan), by the
 * adder. The added user counts system_add_to_channel as a mention (Mattermost's notifications add an implicit
 * mention of props.addedUserId), not the guest one.
 */
const addPost = (channel: ChannelRef, actor: Named, added: Named): SystemPost => {
  const guest = isGuest(added)
  return {
    channel,
    userId: actor.id,
    type: guest ? "system_add_guest_to_chan" : "system_add_to_channel",
    message: guest
      ? `${added.username} added to the channel as a guest by ${actor.username}.`
      : `${added.username} added to the channel by ${actor.username}.`,
    props: { userId: actor.id, username: actor.username, addedUserId: added.id, addedUsername: added.username },
    mentioned: guest ? [] : [added.id]
  }
}

/** One add post per added user; in the thread of `rootId` when given (the add endpoint's post_root_id, /invite in a thread). */
export const addedToChannel = (channel: ChannelRef, actorId: string, addedIds: ReadonlyArray<string>, rootId = "") =>
  directOrGroup(channel) ? Effect.void : Effect.gen(function*() {
    const users = yield* usersOf([actorId, ...addedIds])
    const actor = users.find((u) => u.id === actorId)
    if (actor === undefined) return
    for (const addedId of addedIds) {
      const added = users.find((u) => u.id === addedId)
      if (added === undefined) continue
      const p = addPost(channel, actor, added)
      yield* rootId === "" ? post(p) : logged(p.type, writeReply(p, rootId))
    }
  }).pipe(Effect.orElse(() => Effect.void))

/** postRemoveFromChannelMessage: "@<removed> removed from the channel.", by the remover. */
export const removedFromChannel = (channel: ChannelRef, removerId: string, removedId: string) =>
  directOrGroup(channel) ? Effect.void : Effect.flatMap(Effect.orElseSucceed(userOf(removedId), () => undefined), (removed) =>
    removed === undefined ? Effect.void : post({
      channel,
      userId: removerId,
      type: "system_remove_from_channel",
      message: `@${removed.username} removed from the channel.`,
      props: { removedUserId: removed.id, removedUsername: removed.username }
    }))

/** Leaving (self) or removing someone else, as Mattermost's RemoveUserFromChannel decides. */
export const leftOrRemoved = (channel: ChannelRef, actorId: string, userId: string) =>
  actorId === userId ? leftChannel(channel, userId) : removedFromChannel(channel, actorId, userId)

const changeText = (username: string, what: string, before: string, after: string) =>
  before === ""
    ? `${username} updated the channel ${what} to: ${after}`
    : after === ""
    ? `${username} removed the channel ${what} (was: ${before})`
    : `${username} updated the channel ${what} from: ${before} to: ${after}`

/**
 * PostUpdateChannelHeaderMessage, PostUpdateChannelPurposeMessage, PostUpdateChannelDisplayNameMessage: one post per
 * property that changed, in that order (as Mattermost's patch handler posts them).
 */
export const propertiesChanged = (
  channel: ChannelRef,
  actorId: string,
  before: { readonly header: string; readonly purpose: string; readonly display_name: string },
  after: { readonly header: string; readonly purpose: string; readonly display_name: string }
) =>
  Effect.gen(function*() {
    if (before.header === after.header && before.purpose === after.purpose && before.display_name === after.display_name) return
    const actor = yield* userOf(actorId)
    if (actor === undefined) return
    const username = actor.username
    if (before.header !== after.header) {
      yield* post({
        channel,
        userId: actorId,
        type: "system_header_change",
        message: changeText(username, "header", before.header, after.header),
        props: { username, old_header: before.header, new_header: after.header }
      })
    }
    if (before.purpose !== after.purpose && !directOrGroup(channel)) {
      yield* post({
        channel,
        userId: actorId,
        type: "system_purpose_change",
        message: changeText(username, "purpose", before.purpose, after.purpose),
        props: { username, old_purpose: before.purpose, new_purpose: after.purpose }
      })
    }
    if (before.display_name !== after.display_name && !directOrGroup(channel)) {
      yield* post({
        channel,
        userId: actorId,
        type: "system_displayname_change",
        message: `${username} updated the channel display name from: ${before.display_name} to: ${after.display_name}`,
        props: { username, old_displayname: before.display_name, new_displayname: after.display_name }
      })
    }
  }).pipe(Effect.orElse(() => Effect.void))

const byActor = (channel: ChannelRef, actorId: string, type: string, message: (username: string) => string) =>
  Effect.flatMap(Effect.orElseSucceed(userOf(actorId), () => undefined), (actor) =>
    actor === undefined ? Effect.void : post({ channel, userId: actorId, type, message: message(actor.username), props: { username: actor.username } }))

/** The archive post (system_channel_deleted), written before the channel is archived as Mattermost does. */
export const archived = (channel: ChannelRef, actorId: string) =>
  byActor(channel, actorId, "system_channel_deleted", (u) => `${u} archived the channel.`)

/** The restore post (system_channel_restored), written once the channel is back. */
export const restored = (channel: ChannelRef, actorId: string) =>
  byActor(channel, actorId, "system_channel_restored", (u) => `${u} unarchived the channel.`)

/** postChannelPrivacyMessage: system_change_chan_privacy with the channel's new type's sentence. */
export const privacyChanged = (channel: ChannelRef, actorId: string, privacy: "O" | "P") =>
  byActor(channel, actorId, "system_change_chan_privacy", () =>
    privacy === "P"
      ? "This channel has been converted to a Private Channel."
      : "This channel has been converted to a Public Channel and can be joined by any team member.")

const teamPost = (teamId: string, make: (townSquare: ChannelRef) => Effect.Effect<void, never, Db | EventBus>) =>
  Effect.gen(function*() {
    if (!(yield* siteSwitches).defaultChannelLeaveJoinMessages) return
    const [townSquare] = yield* channelsWhere(teamId, [], DEFAULT_CHANNEL)
    if (townSquare === undefined || townSquare.delete_at > 0) return
    yield* make(townSquare)
  }).pipe(Effect.orElse(() => Effect.void))

const channelsWhere = (teamId: string, ids: ReadonlyArray<string>, name?: string) =>
  Effect.flatMap(Db, (db) =>
    db.read(db.sql`
      SELECT id, team_id, type, name, display_name, delete_at FROM channels
      WHERE team_id = ${teamId} AND (id = ANY(${[...ids]}) OR name = ${name ?? ""})`).pipe(Channels)).pipe(
    Effect.map((found) => found.map((c) => ({ ...c, delete_at: Number(c.delete_at) })))
  )

/**
 * Joining a team (JoinUserToTeam / JoinDefaultChannels / postJoinMessageForDefaultChannel), under
 * ExperimentalEnableDefaultChannelLeaveJoinMessages, in each default channel the user joined. With no `requestorId`
 * (Mattermost's userRequestorId ""; one's own join, an invite link, sign-up with an invite id, team creation, the
 * single POST /teams/{id}/members even for someone else, the CLI) the user posts system_join_team in Town Square and
 * system_join_channel elsewhere. With one (POST /teams/{id}/members/batch) the requestor posts system_add_to_team
 * in Town Square and system_add_to_channel elsewhere. Guests get none: Mattermost does not put them in the default
 * channels.
 */
export const joinedTeam = (
  teamId: string,
  requestorId: string | undefined,
  joined: ReadonlyArray<{ readonly channel: { readonly id: string }; readonly userId: string }>
) =>
  Effect.gen(function*() {
    if (joined.length === 0 || !(yield* siteSwitches).defaultChannelLeaveJoinMessages) return
    const channels = yield* channelsWhere(teamId, [...new Set(joined.map((j) => j.channel.id))])
    const users = yield* usersOf([...new Set([...(requestorId === undefined ? [] : [requestorId]), ...joined.map((j) => j.userId)])])
    const requestor = users.find((u) => u.id === requestorId)
    // Town Square first, as Mattermost's default channel names are ordered.
    const ordered = [...joined].sort((a, b) => rank(channels, a.channel.id) - rank(channels, b.channel.id))
    for (const { channel: { id }, userId } of ordered) {
      const channel = channels.find((c) => c.id === id)
      const user = users.find((u) => u.id === userId)
      if (channel === undefined || user === undefined || isGuest(user)) continue
      const townSquare = channel.name === DEFAULT_CHANNEL
      if (requestor === undefined) {
        yield* post({
          channel,
          userId,
          type: townSquare ? "system_join_team" : "system_join_channel",
          message: `${user.username} joined the ${townSquare ? "team" : "channel"}.`,
          props: { username: user.username }
        })
      } else if (townSquare) {
        yield* post({
          channel,
          userId: requestor.id,
          type: "system_add_to_team",
          message: `${user.username} added to the team by ${requestor.username}.`,
          props: { userId: requestor.id, username: requestor.username, addedUserId: user.id, addedUsername: user.username }
        })
      } else {
        yield* post(addPost(channel, requestor, user))
      }
    }
  }).pipe(Effect.orElse(() => Effect.void))

const rank = (channels: ReadonlyArray<ChannelRef>, id: string) => channels.find((c) => c.id === id)?.name === DEFAULT_CHANNEL ? 0 : 1

/** postLeaveTeamMessage / postRemoveFromTeamMessage in Town Square, posted as the user who left or was removed. */
export const leftTeam = (teamId: string, actorId: string, userId: string) =>
  teamPost(teamId, (channel) =>
    Effect.flatMap(Effect.orElseSucceed(userOf(userId), () => undefined), (user) => {
      if (user === undefined) return Effect.void
      return actorId === userId
        ? post({ channel, userId, type: "system_leave_team", message: `${user.username} left the team.`, props: { username: user.username } })
        : post({
          channel,
          userId,
          type: "system_remove_from_team",
          message: `${user.username} removed from the team.`,
          props: { username: user.username }
        })
    }))

const TeamNames = rows("SystemPosts team", Schema.Struct({ name: Schema.String }))

/** postChannelMoveMessage: system_move_channel by the mover, naming the team the channel came from. */
export const moved = (channel: ChannelRef, actorId: string, previousTeamId: string) =>
  Effect.gen(function*() {
    const [team] = yield* Effect.flatMap(Db, (db) => db.read(db.sql`SELECT name FROM teams WHERE id = ${previousTeamId}`).pipe(TeamNames))
    if (team === undefined) return
    yield* byActor(channel, actorId, "system_move_channel", () => `This channel has been moved to this team from ${team.name}.`)
  }).pipe(Effect.orElse(() => Effect.void))

const PostPlaces = rows("SystemPosts thread root", Schema.Struct({ channel_id: Schema.String, root_id: Schema.String }))

/** The live post's channel and the root of its thread (itself when it is a root), for an add's post_root_id. */
export const threadPlaceOf = (postId: string) =>
  Effect.flatMap(Db, (db) => db.read(db.sql`SELECT channel_id, root_id FROM posts WHERE id = ${postId} AND delete_at = 0`).pipe(PostPlaces)).pipe(
    Effect.map((found) => found[0] === undefined ? undefined : { channelId: found[0].channel_id, rootId: found[0].root_id === "" ? postId : found[0].root_id })
  )
