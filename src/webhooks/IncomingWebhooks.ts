import { Clock, Data, Effect, Option } from "effect"
import { Cache } from "../../layers/Cache.ts"
import { isId, newId } from "../../layers/Crypto.ts"
import { Db } from "../../layers/Db.ts"
import type { IncomingPayload, IncomingWebhookWire } from "../../schemas/IncomingWebhook.ts"
import { Access } from "../access/Access.ts"
import type { Caller } from "../auth/Authenticate.ts"
import { integrationSwitches } from "../integrations/IntegrationSettings.ts"
import { type HookValues, type IncomingRow, makeIncomingRepo } from "./IncomingRepo.ts"
import { postAsWebhook } from "./WebhookPost.ts"

/**
 * Incoming webhooks. Managing them follows Mattermost's default permissions (manage_incoming_webhooks: team admins
 * and system admins; a team admin manages the team's hooks, whoever made them). Posting through one (POST /hooks/{id})
 * needs no session: the hook's id is its secret, as in Mattermost. The post is the creator's, marked from_webhook;
 * the hook's or payload's username and icon replace the creator's only while the override switches are on.
 */

export class HooksDisabled extends Data.TaggedError("HooksDisabled")<{}> {}
export class HookNotPermitted extends Data.TaggedError("HookNotPermitted")<{}> {}
export class HookNotFound extends Data.TaggedError("HookNotFound")<{}> {}
export class HookBadInput extends Data.TaggedError("HookBadInput")<{ readonly id: string; readonly message: string; readonly status: number }> {}
export class HookRateLimited extends Data.TaggedError("HookRateLimited")<{ readonly retryAfter: number }> {}

/** Posts per hook per minute, counted in the shared cache (every node). */
export const HOOK_POSTS_PER_MINUTE = 120

export const toWire = (row: IncomingRow): IncomingWebhookWire => ({
  id: row.id,
  create_at: Number(row.create_at),
  update_at: Number(row.update_at),
  delete_at: Number(row.delete_at),
  last_used: Number(row.last_used),
  user_id: row.user_id,
  channel_id: row.channel_id,
  team_id: row.team_id,
  display_name: row.display_name,
  description: row.description,
  username: row.username,
  icon_url: row.icon_url,
  channel_locked: row.channel_locked
})

const repo = Effect.map(Db, makeIncomingRepo)

const enabled = Effect.flatMap(integrationSwitches, (s) => s.enableIncomingWebhooks ? Effect.void : Effect.fail(new HooksDisabled()))

/**
 * Managing a team's hooks takes manage_incoming_webhooks (or manage_outgoing_webhooks) in the team: team admins and
 * system admins by default, from the caller's system and team roles.
 */
export const mayManageTeam = (caller: Caller, teamId: string, permission: "manage_incoming_webhooks" | "manage_outgoing_webhooks" = "manage_incoming_webhooks") =>
  Effect.gen(function*() {
    if (caller.can(permission)) return
    const access = yield* Effect.flatMap(Access, (a) => a.teamMember(caller, teamId)).pipe(Effect.catchAll(() => Effect.fail(new HookNotPermitted())))
    if (!access.can(permission)) return yield* new HookNotPermitted()
  })

/** The channel a hook posts to: readable by the caller, in a team, not archived. */
const hookChannel = (caller: Caller, channelId: string) =>
  Effect.gen(function*() {
    if (!isId(channelId)) return yield* new HookBadInput({ id: "api.context.invalid_param.app_error", message: "Invalid or missing channel_id parameter in request body.", status: 400 })
    const access = yield* Effect.flatMap(Access, (a) => a.channel(caller, channelId, "read")).pipe(Effect.catchAll(() => Effect.fail(new HookNotPermitted())))
    if (access.channel.team_id === "" || access.channel.delete_at > 0) {
      return yield* new HookBadInput({ id: "api.incoming_webhook.invalid_channel.app_error", message: "Webhooks post only to team channels that are not archived.", status: 400 })
    }
    yield* mayManageTeam(caller, access.channel.team_id)
    return access.channel
  })

const values = (teamId: string, input: { channel_id: string; display_name: string; description: string; username: string; icon_url: string; channel_locked: boolean }): HookValues => ({
  channelId: input.channel_id,
  teamId,
  displayName: input.display_name,
  description: input.description,
  username: input.username,
  iconUrl: input.icon_url,
  channelLocked: input.channel_locked
})

/** The hook `find` gives, if the caller manages its team (incoming and outgoing hooks alike). */
export const managedHook = <Row extends { readonly team_id: string }, E, R>(
  caller: Caller,
  find: Effect.Effect<Option.Option<Row>, E, R>,
  permission: "manage_incoming_webhooks" | "manage_outgoing_webhooks" = "manage_incoming_webhooks"
) =>
  Effect.gen(function*() {
    const row = yield* find
    if (Option.isNone(row)) return yield* new HookNotFound()
    yield* mayManageTeam(caller, row.value.team_id, permission)
    return row.value
  })

/** The row a write returned; none means the hook was deleted meanwhile. */
export const written = <Row, E, R>(write: Effect.Effect<Option.Option<Row>, E, R>) =>
  Effect.flatMap(write, Option.match({ onNone: () => Effect.fail(new HookNotFound()), onSome: Effect.succeed }))

const owned = (caller: Caller, hookId: string) => managedHook(caller, Effect.flatMap(repo, (r) => r.byId(hookId)))

export const create = (caller: Caller, input: Parameters<typeof values>[1] & { user_id: string }) =>
  Effect.gen(function*() {
    yield* enabled
    const channel = yield* hookChannel(caller, input.channel_id)
    // Making a hook that posts as someone else is for system admins (manage_others_incoming_webhooks).
    const owner = input.user_id === "" ? caller.userId : input.user_id
    if (owner !== caller.userId && !caller.isSystemAdmin) return yield* new HookNotPermitted()
    const now = yield* Clock.currentTimeMillis
    return toWire(yield* (yield* repo).insert(newId(), owner, values(channel.team_id, input), now))
  })

export const get = (caller: Caller, hookId: string) =>
  Effect.gen(function*() {
    yield* enabled
    return toWire(yield* owned(caller, hookId))
  })

export const list = (caller: Caller, filter: { teamId: string; page: number; perPage: number }) =>
  Effect.gen(function*() {
    yield* enabled
    if (filter.teamId === "") {
      if (!caller.isSystemAdmin) return yield* new HookNotPermitted()
    } else yield* mayManageTeam(caller, filter.teamId)
    const rows = yield* (yield* repo).list({ teamId: filter.teamId === "" ? undefined : filter.teamId, page: filter.page, perPage: filter.perPage })
    return rows.map(toWire)
  })

export const update = (caller: Caller, hookId: string, input: Parameters<typeof values>[1]) =>
  Effect.gen(function*() {
    yield* enabled
    yield* owned(caller, hookId)
    const channel = yield* hookChannel(caller, input.channel_id)
    const now = yield* Clock.currentTimeMillis
    return toWire(yield* written((yield* repo).update(hookId, values(channel.team_id, input), now)))
  })

export const remove = (caller: Caller, hookId: string) =>
  Effect.gen(function*() {
    yield* enabled
    yield* owned(caller, hookId)
    yield* (yield* repo).remove(hookId, yield* Clock.currentTimeMillis)
  })

const invalid = (id: string, message: string, status = 400) => new HookBadInput({ id, message, status })

/** Counts a post against the hook's minute; fails when over. */
const rateLimit = (hookId: string) =>
  Effect.gen(function*() {
    const now = yield* Clock.currentTimeMillis
    const window = Math.floor(now / 60_000)
    const count = yield* Effect.flatMap(Cache, (c) => c.incr(`ratelimit:hook:${hookId}:${window}`, 60_000)).pipe(
      Effect.map((c) => c.count),
      Effect.orElseSucceed(() => 0)
    )
    if (count > HOOK_POSTS_PER_MINUTE) return yield* new HookRateLimited({ retryAfter: Math.max(1, Math.ceil(((window + 1) * 60_000 - now) / 1000)) })
  })

/** POST /hooks/{id}: posts the payload as the hook's creator. */
export const execute = (hookId: string, payload: IncomingPayload) =>
  Effect.gen(function*() {
    const switches = yield* integrationSwitches
    if (!switches.enableIncomingWebhooks) return yield* new HooksDisabled()
    const hooks = yield* repo
    const found = isId(hookId) ? yield* hooks.byId(hookId) : Option.none<IncomingRow>()
    if (Option.isNone(found)) return yield* invalid("web.incoming_webhook.invalid.app_error", "Invalid webhook.")
    const hook = found.value
    if (payload.text.trim() === "" && payload.attachments.length === 0) {
      return yield* invalid("web.incoming_webhook.text.app_error", "No text specified.")
    }
    if (payload.type !== "" && !payload.type.startsWith("custom_")) {
      return yield* invalid("web.incoming_webhook.type.app_error", "Invalid post type.")
    }
    let channelId = hook.channel_id
    const wanted = payload.channel.replace(/^#/, "").trim()
    if (wanted !== "") {
      if (wanted.startsWith("@")) return yield* invalid("web.incoming_webhook.channel.app_error", "Posting to a direct message channel through a webhook is not supported by this server.", 400)
      const target = yield* hooks.channelByName(hook.team_id, wanted.toLowerCase())
      if (Option.isNone(target)) return yield* invalid("web.incoming_webhook.channel.app_error", "Couldn't find the channel.", 404)
      if (hook.channel_locked && target.value !== hook.channel_id) {
        return yield* invalid("web.incoming_webhook.channel_locked.app_error", "This webhook is not permitted to post to the requested channel.", 403)
      }
      channelId = target.value
    }
    yield* rateLimit(hook.id)
    const user = yield* hooks.userRoles(hook.user_id)
    if (Option.isNone(user)) return yield* invalid("web.incoming_webhook.user.app_error", "The webhook's creator is deactivated.", 400)
    const now = yield* Clock.currentTimeMillis
    // The creator, as a session-less caller: the post is checked against their channel rights like any other.
    yield* postAsWebhook(switches, { id: hook.user_id, ...user.value }, {
      channelId,
      rootId: "",
      text: payload.text,
      props: payload.props,
      attachments: payload.attachments,
      username: payload.username || hook.username,
      iconUrl: payload.icon_url || hook.icon_url,
      iconEmoji: payload.icon_emoji
    })
    yield* hooks.touch(hook.id, now)
  })
