import { Clock, Data, Effect, Option } from "effect"
import { isId, newId } from "../../layers/Crypto.ts"
import { Db } from "../../layers/Db.ts"
import type { OutgoingHookInput, OutgoingWebhookWire, UpdateOutgoingWebhook } from "../../schemas/OutgoingWebhook.ts"
import type { Caller } from "../auth/Authenticate.ts"
import { integrationSwitches } from "../integrations/IntegrationSettings.ts"
import { HookBadInput, HookNotPermitted, managedHook, mayManageTeam, written } from "./IncomingWebhooks.ts"
import { OutgoingHookCache } from "./OutgoingHookCache.ts"
import { makeOutgoingRepo, type OutgoingRow } from "./OutgoingRepo.ts"

/**
 * Managing outgoing webhooks, with Mattermost's default permissions (manage_outgoing_webhooks and
 * manage_others_outgoing_webhooks: team admins and system admins; members manage none). A hook watches one public
 * channel, or every public channel of its team when it has no channel, in which case it needs trigger words.
 */

export class OutgoingHooksDisabled extends Data.TaggedError("OutgoingHooksDisabled")<{}> {}

export const toWire = (row: OutgoingRow): OutgoingWebhookWire => ({
  id: row.id,
  token: row.token,
  create_at: Number(row.create_at),
  update_at: Number(row.update_at),
  delete_at: Number(row.delete_at),
  creator_id: row.creator_id,
  channel_id: row.channel_id,
  team_id: row.team_id,
  trigger_words: row.trigger_words,
  trigger_when: row.trigger_when,
  callback_urls: row.callback_urls,
  display_name: row.display_name,
  description: row.description,
  content_type: row.content_type,
  username: row.username,
  icon_url: row.icon_url
})

const repo = Effect.map(Db, makeOutgoingRepo)

/** Every node's copy of the team's hooks is refreshed (a post right after sees the change). */
const changed = (teamId: string) => Effect.flatMap(OutgoingHookCache, (cache) => cache.changed(teamId))

export const enabled = Effect.flatMap(integrationSwitches, (s) => s.enableOutgoingWebhooks ? Effect.void : Effect.fail(new OutgoingHooksDisabled()))

const invalid = (id: string, message: string, status = 400) => new HookBadInput({ id, message, status })

const isHttpUrl = (raw: string) => {
  try {
    const url = new URL(raw)
    return (url.protocol === "http:" || url.protocol === "https:") && url.hostname !== ""
  } catch {
    return false
  }
}

/** Mattermost's OutgoingWebhook.IsValid, for what the schema does not already check; trigger words are trimmed. */
const checked = (input: OutgoingHookInput) =>
  Effect.gen(function*() {
    const words = input.trigger_words.map((w) => w.trim())
    if (words.some((w) => w === "" || /\s/.test(w))) {
      return yield* invalid("model.outgoing_hook.is_valid.trigger_words.app_error", "Invalid trigger words: each is one word, not empty.")
    }
    if (words.join(",").length > 1024) return yield* invalid("model.outgoing_hook.is_valid.words.app_error", "Invalid trigger words: at most 1024 characters together.")
    if (input.callback_urls.length === 0 || input.callback_urls.join(",").length > 1024) {
      return yield* invalid("model.outgoing_hook.is_valid.callback.app_error", "Invalid callback urls: at least one, at most 1024 characters together.")
    }
    if (!input.callback_urls.every(isHttpUrl)) return yield* invalid("model.outgoing_hook.is_valid.url.app_error", "Invalid callback urls. Each must be a valid http or https URL.")
    return { ...input, trigger_words: [...new Set(words)] }
  })

/**
 * Where the hook watches: a public, unarchived channel of its team, or the whole team (then only with trigger words).
 * `action` names the route in Mattermost's error ids.
 */
const checkScope = (teamId: string, input: OutgoingHookInput, action: "create" | "update") =>
  Effect.gen(function*() {
    if (input.channel_id === "") {
      if (input.trigger_words.length === 0) {
        return yield* invalid(`api.webhooks.${action}_outgoing.triggers.app_error`, "Either trigger_words or channel_id must be set.")
      }
      return
    }
    if (!isId(input.channel_id)) return yield* invalid("api.context.invalid_param.app_error", "Invalid or missing channel_id parameter in request body.")
    const channel = yield* (yield* repo).channel(input.channel_id)
    if (Option.isNone(channel)) return yield* invalid("app.channel.get.existing.app_error", "Channel not found.", 404)
    if (channel.value.type !== "O") {
      return yield* invalid(`api.webhooks.${action}_outgoing.not_open.app_error`, "Outgoing webhooks can only watch public channels.", 403)
    }
    if (channel.value.team_id !== teamId) {
      return yield* invalid(`api.webhooks.${action}_outgoing.permissions.app_error`, "The channel is not in the webhook's team.", 403)
    }
    if (Number(channel.value.delete_at) > 0) {
      return yield* invalid("api.outgoing_webhook.archived_channel.app_error", "Outgoing webhooks cannot watch an archived channel.")
    }
  })

/** As Mattermost: two hooks of one scope may not call the same URL for the same word (the answer would come twice). */
const noOverlap = (teamId: string, hookId: string, input: OutgoingHookInput, action: "create" | "update") =>
  Effect.gen(function*() {
    const others = yield* (yield* repo).others(teamId, hookId)
    const clash = others.find((o) =>
      o.channel_id === input.channel_id &&
      o.callback_urls.some((u) => input.callback_urls.includes(u)) &&
      o.trigger_words.some((w) => input.trigger_words.includes(w))
    )
    if (clash !== undefined) {
      return yield* invalid(`api.webhooks.${action}_outgoing.intersect.app_error`, "Another outgoing webhook of this channel already calls one of these URLs for one of these trigger words.")
    }
  })

const owned = (caller: Caller, hookId: string) => managedHook(caller, Effect.flatMap(repo, (r) => r.byId(hookId)), "manage_outgoing_webhooks")

export const create = (caller: Caller, body: OutgoingHookInput & { team_id: string; creator_id: string }) =>
  Effect.gen(function*() {
    yield* enabled
    if (!isId(body.team_id)) return yield* invalid("api.context.invalid_param.app_error", "Invalid or missing team_id parameter in request body.")
    yield* mayManageTeam(caller, body.team_id, "manage_outgoing_webhooks")
    const input = yield* checked(body)
    const hooks = yield* repo
    const creatorId = body.creator_id === "" ? caller.userId : body.creator_id
    // Making a hook for another user (manage_others_outgoing_webhooks, which the team's admins hold): a user of the team.
    if (creatorId !== caller.userId && !(isId(creatorId) && (yield* hooks.activeTeamMember(creatorId, body.team_id)))) {
      return yield* invalid("api.context.invalid_param.app_error", "Invalid creator_id: not an active member of the team.")
    }
    yield* checkScope(body.team_id, input, "create")
    yield* noOverlap(body.team_id, "", input, "create")
    const now = yield* Clock.currentTimeMillis
    const row = yield* hooks.insert({ id: newId(), token: newId(), creatorId, teamId: body.team_id }, input, now)
    yield* changed(body.team_id)
    return toWire(row)
  })

export const get = (caller: Caller, hookId: string) =>
  Effect.gen(function*() {
    yield* enabled
    return toWire(yield* owned(caller, hookId))
  })

/** By channel, by team, or (system admins) every hook. */
export const list = (caller: Caller, filter: { teamId: string; channelId: string; page: number; perPage: number }) =>
  Effect.gen(function*() {
    yield* enabled
    const hooks = yield* repo
    let teamId: string | undefined = filter.teamId === "" ? undefined : filter.teamId
    if (filter.channelId !== "") {
      const channel = yield* hooks.channel(filter.channelId)
      if (Option.isNone(channel)) return yield* new HookNotPermitted()
      if (teamId !== undefined && teamId !== channel.value.team_id) return []
      teamId = channel.value.team_id
    }
    if (teamId === undefined) {
      if (!caller.isSystemAdmin) return yield* new HookNotPermitted()
    } else yield* mayManageTeam(caller, teamId, "manage_outgoing_webhooks")
    const rows = yield* hooks.list({
      teamId,
      channelId: filter.channelId === "" ? undefined : filter.channelId,
      page: filter.page,
      perPage: filter.perPage
    })
    return rows.map(toWire)
  })

/** Mattermost makes the caller the hook's creator on update (its answers are then posted as them). */
export const update = (caller: Caller, hookId: string, body: UpdateOutgoingWebhook) =>
  Effect.gen(function*() {
    yield* enabled
    const old = yield* owned(caller, hookId)
    if (body.team_id !== "" && body.team_id !== old.team_id) {
      return yield* invalid("api.webhook.team_mismatch.app_error", "The team of a webhook cannot change.")
    }
    const input = yield* checked(body)
    yield* checkScope(old.team_id, input, "update")
    yield* noOverlap(old.team_id, hookId, input, "update")
    const row = yield* written((yield* repo).update(hookId, caller.userId, input, yield* Clock.currentTimeMillis))
    yield* changed(old.team_id)
    return toWire(row)
  })

export const regenToken = (caller: Caller, hookId: string) =>
  Effect.gen(function*() {
    yield* enabled
    const hook = yield* owned(caller, hookId)
    const row = yield* written((yield* repo).regenToken(hookId, newId(), yield* Clock.currentTimeMillis))
    yield* changed(hook.team_id)
    return toWire(row)
  })

export const remove = (caller: Caller, hookId: string) =>
  Effect.gen(function*() {
    yield* enabled
    const hook = yield* owned(caller, hookId)
    yield* (yield* repo).remove(hookId, yield* Clock.currentTimeMillis)
    yield* changed(hook.team_id)
  })
