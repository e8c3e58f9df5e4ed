import { Clock, Duration, Effect, Option, Schema } from "effect"
import { newId } from "../../layers/Crypto.ts"
import { OutboundHttp, type OutboundError, type OutboundResponse } from "../../layers/OutboundHttp.ts"
import { CommandResponse } from "../../schemas/Command.ts"
import { integrationFailed, integrationTimeout } from "../../schemas/Errors.ts"
import { AppConfig } from "../Config.ts"
import { issueTriggerId } from "../integrations/TriggerId.ts"
import type { CommandContext } from "./CommandContext.ts"
import type { CommandRow, CommandRepo } from "./CommandRepo.ts"

/**
 * Calling a custom command's URL (Mattermost's DoCommandRequest): a form-encoded request (POST body, or the query of
 * a GET) with the command's token, where it ran and who ran it, a trigger id for opening a dialog and a response_url
 * for delayed answers, through the SSRF-guarded client with the integration timeout. An integration that fails,
 * refuses or is too slow is the integration's failure: 502 (504 for the timeout), never a 500.
 */

const failed = (trigger: string, e: OutboundError) =>
  e._tag === "OutboundTimeout"
    ? integrationTimeout("api.command.execute_command.failed.app_error", `Command with a trigger of '${trigger}' failed: the integration did not answer in time.`, e.message)
    : integrationFailed("api.command.execute_command.failed.app_error", `Command with a trigger of '${trigger}' failed.`, e.message)

const decodeResponse = Schema.decodeUnknownOption(CommandResponse)

/** Mattermost's CommandResponseFromHTTPBody: JSON when the answer says so, otherwise the body is the text. */
export const parseAnswer = (contentType: string, body: string): Option.Option<CommandResponse | null> => {
  if (contentType.split(";")[0].trim().toLowerCase() === "application/json") {
    try {
      const parsed: unknown = JSON.parse(body)
      return parsed === null ? Option.some(null) : decodeResponse(parsed)
    } catch {
      return Option.none()
    }
  }
  return decodeResponse({ text: body })
}

const STATUS_TEXT: Record<number, string> = { 400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found", 500: "Internal Server Error", 502: "Bad Gateway", 503: "Service Unavailable" }

const readAnswer = (trigger: string, answer: OutboundResponse) =>
  Effect.gen(function*() {
    if (answer.status !== 200) {
      return yield* integrationFailed("api.command.execute_command.failed_resp.app_error",
        `Command with a trigger of '${trigger}' returned response ${answer.status}${STATUS_TEXT[answer.status] ? ` ${STATUS_TEXT[answer.status]}` : ""}.`,
        answer.body.slice(0, 500))
    }
    const parsed = parseAnswer(answer.headers["content-type"] ?? "", answer.body)
    if (Option.isNone(parsed)) return yield* integrationFailed("api.command.execute_command.failed.app_error", `Command with a trigger of '${trigger}' failed.`, "the answer is not a command response")
    if (parsed.value === null) {
      return yield* integrationFailed("api.command.execute_command.failed_empty.app_error", `Command with a trigger of '${trigger}' returned an empty response.`)
    }
    return parsed.value
  })

/** How many names of each kind the mention maps look up (a command's text is short; this bounds a long one). */
const MENTIONS_MAX = 50

/**
 * Mattermost's mention maps: the @usernames of team members and the ~names of the team's public channels in the
 * text, as repeated user_mentions/user_mentions_ids and channel_mentions/channel_mentions_ids fields.
 */
const mentionFields = (repo: CommandRepo, teamId: string, text: string) =>
  Effect.gen(function*() {
    const names = (pattern: RegExp) =>
      [...new Set([...text.matchAll(pattern)].map((m) => m[1].toLowerCase().replace(/[.\-_]+$/, "")))].filter((n) => n !== "").slice(0, MENTIONS_MAX)
    const found = yield* repo.mentioned(teamId, names(/(?:^|[^\w@])@([a-z0-9.\-_]+)/gi), names(/(?:^|\s)~([a-z0-9\-_]+)/gi))
    const fields: Array<[string, string]> = []
    for (const u of found.users) fields.push(["user_mentions", u.name], ["user_mentions_ids", u.id])
    for (const c of found.channels) fields.push(["channel_mentions", c.name], ["channel_mentions_ids", c.id])
    return fields
  })

/** The integration's largest answer. */
const MAX_ANSWER_BYTES = 1024 * 1024

export const callCommand = (ctx: CommandContext, repo: CommandRepo, command: CommandRow, message: string) =>
  Effect.gen(function*() {
    const config = yield* AppConfig
    const user = yield* repo.user(ctx.caller.userId)
    const { triggerId, clientTriggerId } = yield* issueTriggerId(ctx.caller.userId)
    const hookId = newId()
    yield* repo.insertHook({ id: hookId, command_id: command.id, user_id: ctx.caller.userId, channel_id: ctx.channel.id, root_id: ctx.rootId }, yield* Clock.currentTimeMillis)
    const params = new URLSearchParams({
      token: command.token,
      team_id: command.team_id,
      team_domain: yield* repo.teamName(command.team_id),
      channel_id: ctx.channel.id,
      channel_name: ctx.channel.name,
      user_id: ctx.caller.userId,
      user_name: Option.match(user, { onNone: () => "", onSome: (u) => u.username }),
      command: `/${command.trigger}`,
      text: message,
      trigger_id: triggerId,
      response_url: `${ctx.siteUrl}/hooks/commands/${hookId}`
    })
    for (const [key, value] of yield* mentionFields(repo, command.team_id, message)) params.append(key, value)
    const form = params.toString()
    const get = command.method === "G"
    const url = get ? `${command.url}${command.url.includes("?") ? "&" : "?"}${form}` : command.url
    const answer = yield* Effect.flatMap(OutboundHttp, (http) =>
      http.request({
        url,
        method: get ? "GET" : "POST",
        headers: {
          accept: "application/json",
          authorization: `Token ${command.token}`,
          ...(get ? {} : { "content-type": "application/x-www-form-urlencoded" })
        },
        body: get ? undefined : form,
        timeout: Duration.millis(config.integrationTimeoutMs),
        maxBytes: MAX_ANSWER_BYTES
      })).pipe(Effect.mapError((e) => failed(command.trigger, e)))
    const response = yield* readAnswer(command.trigger, answer)
    return { ...response, trigger_id: clientTriggerId }
  })
