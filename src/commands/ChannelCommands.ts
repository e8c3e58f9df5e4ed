import { Clock, Effect, Option, Schema } from "effect"
import { Db } from "../../layers/Db.ts"
import { rows } from "../../layers/Rows.ts"
import { DomainEvent } from "../../schemas/Events.ts"
import { Access, type ChannelRef } from "../access/Access.ts"
import * as ChannelEvents from "../channels/ChannelEvents.ts"
import { ChannelMemberRow, ChannelRow } from "../channels/ChannelRows.ts"
import { HEADER_MAX, PURPOSE_MAX, DISPLAY_NAME_MAX } from "../channels/ChannelValidation.ts"
import { toChannelMember } from "../channels/ChannelWire.ts"
import * as Membership from "../channels/Membership.ts"
import { EventBus } from "../events/EventBus.ts"
import * as SystemPosts from "../posts/SystemPosts.ts"
import { answer, type CommandContext, ephemeral, goTo } from "./CommandContext.ts"

/**
 * Built-ins about channels: /join (/open), /leave, /invite, /kick (/remove), /header, /purpose, /rename, /mute.
 * Rights follow Mattermost's default scheme: channel members manage a team channel's members and properties.
 */

const DEFAULT_CHANNEL = "town-square"
const CHANNEL_HELP = "Please use the [channel handle](https://docs.mattermost.com/messaging/managing-channels.html#naming-a-channel) to identify channels."

const isDirect = (c: ChannelRef) => c.type === "D" || c.type === "G"

/** A channel as Access names it (ChannelRef): delete_at is read as float8, a number. */
const ChannelRefs = rows("ChannelCommands channel", Schema.Struct({
  id: Schema.String,
  team_id: Schema.String,
  type: Schema.String,
  name: Schema.String,
  display_name: Schema.String,
  delete_at: Schema.Number
}))
const Names = rows("ChannelCommands team name", Schema.Struct({ name: Schema.String }))
const DisplayNames = rows("ChannelCommands team display name", Schema.Struct({ display_name: Schema.String }))
const Named = Schema.Struct({ id: Schema.String, username: Schema.String })
type Named = typeof Named.Type
const NamedUsers = rows("ChannelCommands user", Named)
const Channels = rows("ChannelCommands patch", ChannelRow)
const Members = rows("ChannelCommands mute", ChannelMemberRow)

const channelNamed = (teamId: string, name: string) =>
  Effect.gen(function*() {
    if (teamId === "" || name === "") return Option.none<ChannelRef>()
    const db = yield* Db
    const [channel] = yield* db.read(db.sql`
      SELECT id, team_id, type, name, display_name, delete_at::float8 AS delete_at FROM channels
      WHERE team_id = ${teamId} AND name = ${name.toLowerCase()} AND delete_at = 0`.pipe(ChannelRefs))
    return Option.fromNullable<ChannelRef>(channel)
  })

const teamName = (teamId: string) =>
  Effect.flatMap(Db, (db) => db.read(db.sql`SELECT name FROM teams WHERE id = ${teamId}`.pipe(Names))).pipe(
    Effect.map((rows) => rows[0]?.name ?? "")
  )

/**
 * Whether the caller may read the channel and holds the permission its type names there (as the REST routes check:
 * system, team and channel roles together); none is needed in a DM or group message.
 */
const allowedIn = (ctx: CommandContext, channelId: string, permission: (type: string) => string | undefined) =>
  Effect.flatMap(Access, (a) => a.channel(ctx.caller, channelId, "read")).pipe(
    Effect.map((access) => {
      const needed = isDirect(access.channel) ? undefined : permission(access.channel.type)
      return needed === undefined || access.can(needed)
    }),
    Effect.orElseSucceed(() => false)
  )
const membersPermission = (type: string) => type === "P" ? "manage_private_channel_members" : "manage_public_channel_members"
const propertiesPermission = (type: string) => type === "P" ? "manage_private_channel_properties" : "manage_public_channel_properties"
/** A private channel opens only for whom may read it (its members, system admins). */
const readable = (ctx: CommandContext, channelId: string) => allowedIn(ctx, channelId, () => undefined)

/** `rootId`: the thread /invite was typed in, where Mattermost writes the add post (only in that same channel). */
const addMember = (channel: ChannelRef, userId: string, actorId: string, rootId = "") =>
  Effect.gen(function*() {
    const db = yield* Db
    const now = yield* Clock.currentTimeMillis
    const added = yield* db.transaction(Membership.add(db.sql, [{ channel, userId, admin: false }], now))
    yield* ChannelEvents.usersAdded(yield* EventBus, added)
    if (added.length > 0) {
      yield* (userId === actorId ? SystemPosts.joinedChannel(channel, userId) : SystemPosts.addedToChannel(channel, actorId, [userId], rootId))
    }
    return added.length > 0
  })

const removeMember = (ctx: CommandContext, channel: ChannelRef, userId: string) =>
  Effect.gen(function*() {
    const db = yield* Db
    const removed = yield* db.transaction(Membership.remove(db.sql, userId, [channel.id]))
    if (removed.length > 0) {
      yield* ChannelEvents.userRemoved(yield* EventBus, channel.id, userId, ctx.caller.userId)
      yield* SystemPosts.leftOrRemoved(channel, ctx.caller.userId, userId)
    }
    return removed.length > 0
  })

const isTeamMember = (teamId: string, userId: string) =>
  Effect.flatMap(Db, (db) => db.read(db.sql`SELECT 1 FROM team_members WHERE team_id = ${teamId} AND user_id = ${userId} AND delete_at = 0`)).pipe(
    Effect.map((rows) => rows.length > 0)
  )

/** `/join ~channel` (and /open): joins a public channel of the team, or opens a private one the user is in. */
const join = (ctx: CommandContext, message: string) =>
  Effect.gen(function*() {
    const failed = ephemeral("An error occurred while joining the channel.")
    const found = yield* channelNamed(ctx.teamId, message.trim().replace(/^~/, ""))
    if (Option.isNone(found)) return ephemeral("An error occurred while listing channels.")
    const channel = found.value
    if (channel.type === "P") {
      if (!(yield* readable(ctx, channel.id))) return ephemeral("Unable to find the channel.")
    } else if (channel.type !== "O" || !(ctx.caller.isSystemAdmin || (yield* isTeamMember(channel.team_id, ctx.caller.userId)))) {
      return failed
    }
    if (channel.type === "O") yield* addMember(channel, ctx.caller.userId, ctx.caller.userId)
    return goTo(`${ctx.siteUrl}/${yield* teamName(channel.team_id)}/channels/${channel.name}`)
  })

/** Leaves the current channel and sends the client to the team's default channel. */
const leave = (ctx: CommandContext) =>
  Effect.gen(function*() {
    const channel = ctx.channel
    if (channel.name === DEFAULT_CHANNEL && channel.type === "O") return ephemeral(`Unable to leave the default channel ${DEFAULT_CHANNEL}.`)
    if (channel.type === "D" || !(yield* removeMember(ctx, channel, ctx.caller.userId))) {
      return ephemeral("An error occurred while leaving the channel.")
    }
    if (ctx.teamId === "" || !(yield* isTeamMember(ctx.teamId, ctx.caller.userId))) return goTo(`${ctx.siteUrl}/`)
    return goTo(`${ctx.siteUrl}/${yield* teamName(ctx.teamId)}/channels/${DEFAULT_CHANNEL}`)
  })

const userNamed = (name: string) =>
  Effect.flatMap(Db, (db) => db.read(db.sql`SELECT id, username FROM users WHERE lower(username) = ${name.toLowerCase()} AND delete_at = 0`.pipe(NamedUsers))).pipe(
    Effect.map((rows) => Option.fromNullable(rows[0]))
  )

const listed = (names: ReadonlyArray<string>) => `@${names.join(", @")}`

/** `/invite @user... ~channel...`: adds the users to the channels (the current one if none is named). */
const invite = (ctx: CommandContext, message: string) =>
  Effect.gen(function*() {
    const missingMessage = ephemeral("Missing Username and/or Channel.")
    if (message.trim() === "") return missingMessage
    const notes: Array<string> = []
    const users: Array<Named> = []
    const channels: Array<ChannelRef> = []
    for (const [i, word] of message.split(" ").entries()) {
      if (word === "") continue
      if (word.startsWith("@") || (!word.startsWith("~") && i === 0)) {
        const name = word.replace(/^@/, "")
        const user = yield* userNamed(name)
        if (Option.isNone(user)) notes.push(`We couldn't find the user ${name}. They may have been deactivated by the System Administrator.`)
        else if (!users.some((u) => u.id === user.value.id)) users.push(user.value)
      } else {
        const name = word.replace(/^~/, "")
        const channel = yield* channelNamed(ctx.teamId, name)
        if (Option.isNone(channel)) notes.push(`Could not find the channel ${name}. ${CHANNEL_HELP}`)
        else channels.push(channel.value)
      }
    }
    if (users.length === 0 || (channels.length === 0 && notes.length > 0)) return notes.length > 0 ? ephemeral(notes.join("\n")) : missingMessage
    if (channels.length === 0) channels.push(ctx.channel)
    const alreadyIn: Array<string> = []
    const addedElsewhere: Array<{ user: string; channel: string }> = []
    const notInTeam: Array<string> = []
    for (const channel of channels) {
      if (isDirect(channel)) {
        notes.push("You can't add someone to a direct message channel.")
        continue
      }
      if (!(yield* allowedIn(ctx, channel.id, membersPermission))) {
        notes.push(channel.type === "P"
          ? `Could not find the channel ${channel.name}. ${CHANNEL_HELP}`
          : `You don't have enough permissions to add ${users[0].username} in ${channel.name}.`)
        continue
      }
      for (const user of users) {
        if (!(yield* isTeamMember(channel.team_id, user.id))) notInTeam.push(user.username)
        else if (!(yield* addMember(channel, user.id, ctx.caller.userId, channel.id === ctx.channel.id ? ctx.rootId : ""))) alreadyIn.push(user.username)
        else if (channel.id !== ctx.channel.id) addedElsewhere.push({ user: user.username, channel: channel.name })
      }
    }
    if (alreadyIn.length > 0) notes.push(`${listed(alreadyIn)} ${alreadyIn.length === 1 ? "is" : "are"} already in the channel.`)
    for (const added of addedElsewhere) notes.push(`@${added.user} added to ${added.channel} channel.`)
    if (notInTeam.length > 0) {
      notes.push(`You can add ${listed(notInTeam)} to this channel once they are members of the **${yield* teamDisplayName(ctx.teamId)}** team.`)
    }
    return ephemeral(notes.join("\n"))
  })

const teamDisplayName = (teamId: string) =>
  Effect.flatMap(Db, (db) => db.read(db.sql`SELECT display_name FROM teams WHERE id = ${teamId}`.pipe(DisplayNames))).pipe(
    Effect.map((rows) => rows[0]?.display_name ?? "unknown")
  )

/** `/kick @user` and `/remove @user`: removes a member from the current channel. */
const kick = (ctx: CommandContext, message: string) =>
  Effect.gen(function*() {
    const channel = ctx.channel
    if (isDirect(channel)) return ephemeral("You can't remove someone from a direct message channel.")
    if (!(yield* allowedIn(ctx, channel.id, membersPermission))) return ephemeral("You don't have the appropriate permissions to remove the member.")
    if (message.trim() === "") return ephemeral("A message must be provided with the /remove or /kick command.")
    const user = yield* userNamed(message.trim().split(" ")[0].replace(/^@/, ""))
    if (Option.isNone(user)) return ephemeral("We couldn't find the user. They may have been deactivated by the System Administrator.")
    if (channel.name === DEFAULT_CHANNEL && channel.type === "O") {
      return ephemeral(`Unable to remove user from the default channel ${DEFAULT_CHANNEL}.`)
    }
    if (!(yield* removeMember(ctx, channel, user.value.id))) return ephemeral(`${user.value.username} is not a member of this channel.`)
    return answer()
  })

/** Updates one property of the current channel and announces it, as PATCH /channels/{id} does. */
const patchChannel = (ctx: CommandContext, field: "header" | "purpose" | "display_name", value: string) =>
  Effect.gen(function*() {
    const db = yield* Db
    const sql = db.sql
    const now = yield* Clock.currentTimeMillis
    const channelId = ctx.channel.id
    const [before] = yield* db.read(sql`SELECT * FROM channels WHERE id = ${channelId}`.pipe(Channels))
    const [row] = yield* db.execute(sql`
      UPDATE channels SET ${sql(field)} = ${value}, update_at = ${now} WHERE id = ${channelId} AND delete_at = 0 RETURNING *`.pipe(Channels))
    if (row !== undefined) {
      yield* ChannelEvents.channelUpdated(yield* EventBus, row)
      if (before !== undefined) yield* SystemPosts.propertiesChanged(ctx.channel, ctx.caller.userId, before, row)
    }
    return row !== undefined
  })

const runes = (s: string) => [...s].length

interface PropertyCommand {
  readonly field: "header" | "purpose" | "display_name"
  readonly denied: string
  /** Why a DM or GM has no such property; undefined when it has. */
  readonly notForDirect?: string
  readonly empty: string
  readonly max: number
  readonly tooLong: string
  readonly failed: string
}

/**
 * /header, /purpose and /rename: who may edit (for a team channel manage_public/private_channel_properties in it, its
 * members by default; for a DM or GM its members), then Mattermost's checks in its order, then the update.
 */
const propertyCommand = (spec: PropertyCommand) => (ctx: CommandContext, message: string) =>
  Effect.gen(function*() {
    if (!(yield* allowedIn(ctx, ctx.channel.id, propertiesPermission))) return ephemeral(spec.denied)
    if (spec.notForDirect !== undefined && isDirect(ctx.channel)) return ephemeral(spec.notForDirect)
    if (message === "") return ephemeral(spec.empty)
    if (runes(message) > spec.max) return ephemeral(spec.tooLong)
    return (yield* patchChannel(ctx, spec.field, message)) ? answer() : ephemeral(spec.failed)
  })

const header = propertyCommand({
  field: "header",
  denied: "You don't have the appropriate permissions to edit the channel header.",
  empty: "Text must be provided with the /header command.",
  max: HEADER_MAX,
  tooLong: `The text entered exceeds the character limit. The channel header is limited to ${HEADER_MAX} characters.`,
  failed: "Error updating the channel header."
})

const purpose = propertyCommand({
  field: "purpose",
  denied: "You don't have the appropriate permissions to edit the channel purpose.",
  notForDirect: "Unable to set purpose for direct message channels. Use /header to set the header instead.",
  empty: "A message must be provided with the /purpose command.",
  max: PURPOSE_MAX,
  tooLong: `The text entered exceeds the character limit. The channel purpose is limited to ${PURPOSE_MAX} characters.`,
  failed: "Error updating the channel purpose."
})

const rename = propertyCommand({
  field: "display_name",
  denied: "You don't have the appropriate permissions to rename the channel.",
  notForDirect: "Unable to rename direct message channels.",
  empty: "A message must be provided with the /rename command.",
  max: DISPLAY_NAME_MAX,
  tooLong: `Channel name must be ${DISPLAY_NAME_MAX} or fewer characters.`,
  failed: "Error to update the current channel."
})

/** `/mute [~channel]`: toggles the member's mark_unread between "all" and "mention" (Mattermost's muting). */
const mute = (ctx: CommandContext, message: string) =>
  Effect.gen(function*() {
    const name = message.split(" ")[0].replace(/^~/, "")
    let channel = ctx.channel
    if (name !== "") {
      const named = yield* channelNamed(ctx.teamId || ctx.channel.team_id, name)
      if (Option.isNone(named)) return ephemeral(`Could not find the channel ${name}. ${CHANNEL_HELP}`)
      channel = named.value
    }
    const db = yield* Db
    const now = yield* Clock.currentTimeMillis
    const [member] = yield* db.execute(db.sql`
      UPDATE channel_members SET last_update_at = ${now}, notify_props = notify_props || jsonb_build_object('mark_unread',
        CASE WHEN notify_props->>'mark_unread' = 'mention' THEN 'all' ELSE 'mention' END)
      WHERE channel_id = ${channel.id} AND user_id = ${ctx.caller.userId}
      RETURNING *`.pipe(Members))
    if (member === undefined) return ephemeral(`Could not mute channel ${channel.display_name || name} as you are not a member.`)
    yield* (yield* EventBus).publish(DomainEvent.ChannelMemberUpdated({ member: toChannelMember(member) }), { user_id: ctx.caller.userId })
    const muted = member.notify_props.mark_unread === "mention"
    if (isDirect(channel)) {
      return ephemeral(muted ? "You will not receive notifications for this channel until channel mute is turned off." : "This channel is no longer muted.")
    }
    return ephemeral(muted
      ? `You will not receive notifications for ${channel.display_name} until channel mute is turned off.`
      : `${channel.display_name} is no longer muted.`)
  })

export const channelCommands = { join, open: join, leave, invite, kick, remove: kick, header, purpose, rename, mute }
