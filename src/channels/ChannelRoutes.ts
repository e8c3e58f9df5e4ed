import { HttpRouter } from "@effect/platform"
import { Clock, Effect, Schema } from "effect"
import { Db } from "../../layers/Db.ts"
import { newId } from "../../layers/Crypto.ts"
import { Access } from "../access/Access.ts"
import { requireCaller } from "../auth/Authenticate.ts"
import { EventBus } from "../events/EventBus.ts"
import { badRequest, permissionDenied } from "../http/ApiError.ts"
import * as Decode from "../http/Decode.ts"
import { json, ok } from "../http/Respond.ts"
import * as ChannelEvents from "./ChannelEvents.ts"
import { channelById } from "./ChannelQueries.ts"
import { channelNameProblem, fieldsProblem } from "./ChannelValidation.ts"
import { type ChannelRow, directName, groupName, toChannel } from "./ChannelWire.ts"
import { ensureDirect } from "./DirectChannels.ts"
import * as Membership from "./Membership.ts"

/** Channels: create, read, patch, archive, restore, privacy, DMs and GMs, stats. */

const ChannelIdParams = Schema.Struct({ channel_id: Decode.Id })

const CreateChannelBody = Schema.Struct({
  team_id: Decode.Id,
  name: Schema.String,
  display_name: Schema.String,
  type: Schema.Literal("O", "P"),
  header: Schema.optionalWith(Schema.String, { default: () => "" }),
  purpose: Schema.optionalWith(Schema.String, { default: () => "" })
})

const ChannelPatch = Schema.Struct({
  name: Schema.optional(Schema.String),
  display_name: Schema.optional(Schema.String),
  header: Schema.optional(Schema.String),
  purpose: Schema.optional(Schema.String)
})

const fieldError = (fields: Parameters<typeof fieldsProblem>[0]) => {
  const problem = fieldsProblem(fields)
  return problem === undefined ? Effect.void : Effect.fail(badRequest(problem[0], problem[1]))
}

const nameTaken = () =>
  badRequest("store.sql_channel.save_channel.exists.app_error", "A channel with that name already exists on the same team.")

const createChannel = Effect.gen(function*() {
  const caller = yield* requireCaller
  const input = yield* Decode.body(CreateChannelBody)
  const access = yield* Access
  yield* access.team(caller, input.team_id)
  const name = input.name.trim()
  const nameProblem = channelNameProblem(name)
  if (nameProblem !== undefined) return yield* badRequest("model.channel.is_valid.name.app_error", nameProblem)
  yield* fieldError(input)
  const db = yield* Db
  const sql = db.sql
  const now = yield* Clock.currentTimeMillis
  const { channel, added } = yield* db.transaction(Effect.gen(function*() {
    const rows = yield* sql<ChannelRow>`
      INSERT INTO channels (id, create_at, update_at, team_id, type, display_name, name, header, purpose, creator_id)
      VALUES (${newId()}, ${now}, ${now}, ${input.team_id}, ${input.type}, ${input.display_name.trim()}, ${name},
              ${input.header}, ${input.purpose}, ${caller.userId})
      ON CONFLICT (team_id, name) DO NOTHING
      RETURNING *`
    if (rows.length === 0) return yield* nameTaken()
    const added = yield* Membership.add(sql, [{ channel: rows[0], userId: caller.userId, admin: true }], now)
    return { channel: rows[0], added }
  }))
  const bus = yield* EventBus
  yield* bus.publish("channel_created", { channel_id: channel.id, team_id: channel.team_id }, { user_id: caller.userId })
  yield* ChannelEvents.usersAdded(bus, added)
  return json(toChannel(channel), 201)
})

const getChannel = Effect.gen(function*() {
  const caller = yield* requireCaller
  const { channel_id } = yield* Decode.params(ChannelIdParams)
  const access = yield* Access
  yield* access.channel(caller, channel_id, "read")
  return json(toChannel(yield* channelById(channel_id)))
})

/**
 * Members may edit a channel's properties (Mattermost's default manage_*_channel_properties); DMs and GMs only have a
 * header and purpose, no name.
 */
const patchChannel = (partial: boolean) =>
  Effect.gen(function*() {
    const caller = yield* requireCaller
    const { channel_id } = yield* Decode.params(ChannelIdParams)
    const access = yield* Access
    const { channel } = yield* access.channel(caller, channel_id, "write")
    const patch = yield* Decode.body(ChannelPatch)
    if (channel.delete_at !== 0) {
      return yield* badRequest("api.channel.update_channel.deleted.app_error", "The channel has been archived or deleted.")
    }
    const direct = channel.type === "D" || channel.type === "G"
    if (direct && (patch.name !== undefined || patch.display_name !== undefined)) {
      return yield* badRequest("api.channel.update_channel.tried.app_error", "Direct and group message channels have no name to change.")
    }
    if (!partial && !direct && patch.display_name === undefined) {
      return yield* badRequest("model.channel.is_valid.display_name.app_error", "Display name is required.")
    }
    const name = patch.name?.trim()
    if (name !== undefined) {
      const nameProblem = channelNameProblem(name)
      if (nameProblem !== undefined) return yield* badRequest("model.channel.is_valid.name.app_error", nameProblem)
      if (name !== channel.name && channel.name === "town-square") {
        return yield* badRequest("api.channel.update_channel.tried.app_error", "The default channel cannot be renamed.")
      }
    }
    yield* fieldError(patch)
    const db = yield* Db
    const sql = db.sql
    const now = yield* Clock.currentTimeMillis
    const rows = yield* db.transaction(Effect.gen(function*() {
      if (name !== undefined && name !== channel.name) {
        const clash = yield* sql`SELECT 1 FROM channels WHERE team_id = ${channel.team_id} AND name = ${name} AND id <> ${channel_id}`
        if (clash.length > 0) return yield* nameTaken()
      }
      return yield* sql<ChannelRow>`
        UPDATE channels SET
          name = COALESCE(${name ?? null}, name),
          display_name = COALESCE(${patch.display_name?.trim() ?? null}, display_name),
          header = COALESCE(${patch.header ?? null}, header),
          purpose = COALESCE(${patch.purpose ?? null}, purpose),
          update_at = ${now}
        WHERE id = ${channel_id}
        RETURNING *`
    }))
    const bus = yield* EventBus
    yield* ChannelEvents.channelUpdated(bus, rows[0])
    return json(toChannel(rows[0]))
  })

/** Archives (soft-deletes) a team channel; members may, as Mattermost's default delete_*_channel permissions allow. */
const archiveChannel = Effect.gen(function*() {
  const caller = yield* requireCaller
  const { channel_id } = yield* Decode.params(ChannelIdParams)
  const access = yield* Access
  const { channel } = yield* access.channel(caller, channel_id, "write")
  if (channel.type === "D" || channel.type === "G") {
    return yield* badRequest("api.channel.delete_channel.type.invalid", "Direct and group message channels cannot be archived.")
  }
  if (channel.name === "town-square") {
    return yield* badRequest("api.channel.delete_channel.cannot.app_error", "Unable to delete the default channel town-square.")
  }
  if (channel.delete_at !== 0) {
    return yield* badRequest("api.channel.delete_channel.deleted.app_error", "The channel has been archived or deleted.")
  }
  const db = yield* Db
  const now = yield* Clock.currentTimeMillis
  yield* db.transaction(db.sql`UPDATE channels SET delete_at = ${now}, update_at = ${now} WHERE id = ${channel_id}`)
  const bus = yield* EventBus
  yield* bus.publish("channel_deleted", { channel_id, delete_at: now }, { team_id: channel.team_id })
  return ok()
})

/** Restoring takes a team admin (Mattermost's manage_team), as archived channels are out of members' reach. */
const restoreChannel = Effect.gen(function*() {
  const caller = yield* requireCaller
  const { channel_id } = yield* Decode.params(ChannelIdParams)
  const access = yield* Access
  const { channel } = yield* access.channel(caller, channel_id, "read")
  const team = yield* access.teamMember(caller, channel.team_id)
  if (!team.isAdmin) return yield* permissionDenied("this channel")
  if (channel.delete_at === 0) {
    return yield* badRequest("api.channel.restore_channel.restored.app_error", "The channel is not archived.")
  }
  const db = yield* Db
  const now = yield* Clock.currentTimeMillis
  const rows = yield* db.transaction(db.sql<ChannelRow>`
    UPDATE channels SET delete_at = 0, update_at = ${now} WHERE id = ${channel_id} RETURNING *`)
  const bus = yield* EventBus
  yield* bus.publish("channel_restored", { channel_id }, { team_id: channel.team_id })
  return json(toChannel(rows[0]))
})

const PrivacyBody = Schema.Struct({ privacy: Schema.Literal("O", "P") })

/** Converts between public and private: team admins (convert_*_channel_* belong to team_admin). */
const updatePrivacy = Effect.gen(function*() {
  const caller = yield* requireCaller
  const { channel_id } = yield* Decode.params(ChannelIdParams)
  const access = yield* Access
  const { channel } = yield* access.channel(caller, channel_id, "read")
  const { privacy } = yield* Decode.body(PrivacyBody)
  if (channel.type !== "O" && channel.type !== "P") {
    return yield* badRequest("api.channel.update_channel_privacy.invalid_type.app_error", "Only team channels have a privacy setting.")
  }
  const team = yield* access.teamMember(caller, channel.team_id)
  if (!team.isAdmin) return yield* permissionDenied("this channel")
  if (channel.name === "town-square" && privacy === "P") {
    return yield* badRequest("api.channel.convert_channel_to_private.default_channel_error", "The default channel cannot be private.")
  }
  const db = yield* Db
  const now = yield* Clock.currentTimeMillis
  const rows = yield* db.transaction(db.sql<ChannelRow>`
    UPDATE channels SET type = ${privacy}, update_at = ${now} WHERE id = ${channel_id} RETURNING *`)
  const bus = yield* EventBus
  yield* bus.publish("channel_converted", { channel_id, channel_type: privacy }, { team_id: channel.team_id })
  yield* ChannelEvents.channelUpdated(bus, rows[0])
  return json(toChannel(rows[0]))
})

const knownUsers = (ids: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const db = yield* Db
    const sql = db.sql
    const rows = yield* db.read(sql<{ id: string; username: string }>`
      SELECT id, username FROM users WHERE id IN ${sql.in(ids)} AND delete_at = 0`)
    if (rows.length !== ids.length) return yield* badRequest("api.channel.create_channel.direct_channel.app_error", "Unknown user.")
    return rows
  })

/** Creates the channel unless one of that name exists, then makes sure every user is a member. */
const DirectBody = Schema.Tuple(Decode.Id, Decode.Id)

const createDirect = Effect.gen(function*() {
  const caller = yield* requireCaller
  const ids = yield* Decode.body(DirectBody)
  if (!ids.includes(caller.userId) && !caller.isSystemAdmin) return yield* permissionDenied("this direct channel")
  const users = [...new Set(ids)]
  yield* knownUsers(users)
  const [a, b] = ids
  const { channel, created } = yield* ensureDirect("D", directName(a, b), "", caller.userId, users)
  if (created) {
    const bus = yield* EventBus
    const teammate = a === caller.userId ? b : a
    yield* bus.publish("direct_added", { creator_id: caller.userId, teammate_id: teammate }, { channel_id: channel.id })
  }
  return json(toChannel(channel), 201)
})

const GROUP_MIN = 3
const GROUP_MAX = 8
const GroupBody = Schema.Array(Decode.Id).pipe(Schema.maxItems(100))

const createGroup = Effect.gen(function*() {
  const caller = yield* requireCaller
  const ids = yield* Decode.body(GroupBody)
  const members = [...new Set([...ids, caller.userId])]
  if (members.length < GROUP_MIN || members.length > GROUP_MAX) {
    return yield* badRequest("api.channel.create_group.bad_size.app_error",
      `Group message channels must contain at least ${GROUP_MIN} and no more than ${GROUP_MAX} users.`)
  }
  const users = yield* knownUsers(members)
  const displayName = users.map((u) => u.username).sort().join(", ")
  const { channel, created } = yield* ensureDirect("G", groupName(members), displayName, caller.userId, members)
  if (created) {
    const bus = yield* EventBus
    yield* bus.publish("group_added", { teammate_ids: JSON.stringify(members) }, { channel_id: channel.id })
  }
  return json(toChannel(channel), 201)
})

const StatsQuery = Schema.Struct({ exclude_files_count: Schema.optionalWith(Decode.QueryBool, { default: () => false }) })

const channelStats = Effect.gen(function*() {
  const caller = yield* requireCaller
  const { channel_id } = yield* Decode.params(ChannelIdParams)
  const q = yield* Decode.query(StatsQuery)
  const access = yield* Access
  yield* access.channel(caller, channel_id, "read")
  const db = yield* Db
  const sql = db.sql
  // Members are counted from the channel's own rows of channel_members (its primary key), less those whose user is
  // deactivated (users_deactivated_idx holds only those, a handful): joining users instead reads every user.
  const [row] = yield* db.read(sql<{ members: string; guests: string; pinned: string; files: string | null }>`
    SELECT m.members, m.guests,
           (SELECT count(*) FROM posts WHERE channel_id = ${channel_id} AND is_pinned AND delete_at = 0) AS pinned,
           ${q.exclude_files_count ? sql`NULL` : sql`(SELECT count(*) FROM file_infos WHERE channel_id = ${channel_id} AND delete_at = 0)`} AS files
    FROM (SELECT count(*) AS members, count(*) FILTER (WHERE cm.scheme_guest) AS guests
          FROM channel_members cm
          WHERE cm.channel_id = ${channel_id}
            AND NOT EXISTS (SELECT 1 FROM users u WHERE u.id = cm.user_id AND u.delete_at <> 0)) m`)
  return json({
    channel_id,
    member_count: Number(row.members),
    guest_count: Number(row.guests),
    pinnedpost_count: Number(row.pinned),
    // Mattermost answers -1 when the count was not asked for.
    files_count: row.files === null ? -1 : Number(row.files)
  })
})

/** The distinct time zones of the channel's members (for "@here" style notices in the webapp). */
const channelTimezones = Effect.gen(function*() {
  const caller = yield* requireCaller
  const { channel_id } = yield* Decode.params(ChannelIdParams)
  const access = yield* Access
  yield* access.channel(caller, channel_id, "read")
  const db = yield* Db
  // A primary-key lookup per member (scalar subquery): as a join, the planner hashes the whole users table as soon as
  // the channel has a few hundred members.
  const rows = yield* db.read(db.sql<{ tz: string | null }>`
    SELECT DISTINCT (
      SELECT CASE WHEN u.timezone->>'useAutomaticTimezone' = 'true' THEN u.timezone->>'automaticTimezone'
                  ELSE u.timezone->>'manualTimezone' END
      FROM users u WHERE u.id = cm.user_id AND u.delete_at = 0) AS tz
    FROM channel_members cm
    WHERE cm.channel_id = ${channel_id}`)
  return json(rows.map((r) => r.tz).filter((tz) => tz !== null && tz !== ""))
})

export const routes = HttpRouter.empty.pipe(
  HttpRouter.post("/api/v4/channels", createChannel),
  HttpRouter.post("/api/v4/channels/direct", createDirect),
  HttpRouter.post("/api/v4/channels/group", createGroup),
  HttpRouter.get("/api/v4/channels/:channel_id", getChannel),
  HttpRouter.put("/api/v4/channels/:channel_id", patchChannel(false)),
  HttpRouter.put("/api/v4/channels/:channel_id/patch", patchChannel(true)),
  HttpRouter.del("/api/v4/channels/:channel_id", archiveChannel),
  HttpRouter.post("/api/v4/channels/:channel_id/restore", restoreChannel),
  HttpRouter.put("/api/v4/channels/:channel_id/privacy", updatePrivacy),
  HttpRouter.get("/api/v4/channels/:channel_id/stats", channelStats),
  HttpRouter.get("/api/v4/channels/:channel_id/timezones", channelTimezones)
)
