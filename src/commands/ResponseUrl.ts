import { Clock, Effect, Option } from "effect"
import { isId } from "../../layers/Crypto.ts"
import type { CommandResponse } from "../../schemas/Command.ts"
import { invalid, notFound } from "../../schemas/Errors.ts"
import { Access } from "../access/Access.ts"
import { AppConfig } from "../Config.ts"
import { actingAs } from "../integrations/ActingCaller.ts"
import { handleResponse } from "./CommandResponses.ts"
import { commandRepo } from "./Commands.ts"

/**
 * POST /hooks/commands/{id}: a delayed answer to one command execution (its response_url), as Mattermost's
 * HandleCommandWebhook. The id is the secret; it answers for 30 minutes, five times, and posts as the user who
 * ran the command, where they ran it, with the same rights as their own requests.
 */
export const answerLater = (hookId: string, response: CommandResponse) =>
  Effect.gen(function*() {
    const repo = yield* commandRepo
    const now = yield* Clock.currentTimeMillis
    const live = isId(hookId) ? yield* repo.liveHook(hookId, now) : Option.none()
    if (Option.isNone(live)) return yield* notFound("app.command_webhook.get.missing", "Unable to find the webhook.")
    const command = yield* repo.byId(live.value.command_id)
    const user = yield* repo.user(live.value.user_id)
    if (Option.isNone(command) || Option.isNone(user)) return yield* notFound("app.command_webhook.get.missing", "Unable to find the webhook.")
    const hook = yield* repo.useHook(hookId, now)
    if (Option.isNone(hook)) return yield* invalid("app.command_webhook.try_use.invalid", "Invalid webhook.")
    const caller = yield* actingAs({ id: live.value.user_id, roles: user.value.roles, is_bot: user.value.is_bot }, now)
    const access = yield* Effect.flatMap(Access, (a) => a.channel(caller, live.value.channel_id, "write"))
    const ctx = { caller, channel: access.channel, teamId: command.value.team_id, rootId: live.value.root_id, siteUrl: (yield* AppConfig).siteUrl }
    yield* handleResponse(ctx, { builtIn: false, username: command.value.username, iconUrl: command.value.icon_url }, response)
  })
