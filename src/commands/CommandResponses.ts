import { Effect, Schema } from "effect"
import { Db } from "../../layers/Db.ts"
import { rows } from "../../layers/Rows.ts"
import type { CommandAnswer, CommandResponse } from "../../schemas/Command.ts"
import { forbidden, invalid } from "../../schemas/Errors.ts"
import { Access } from "../access/Access.ts"
import { integrationSwitches } from "../integrations/IntegrationSettings.ts"
import { createPost } from "../posts/CreatePost.ts"
import { publishEphemeral } from "../posts/EphemeralPost.ts"
import type { CommandContext } from "./CommandContext.ts"
import { anyText } from "../../layers/SqlArrays.ts"

/**
 * What becomes of a command's answer (Mattermost's HandleCommandResponse): `in_channel` is posted as the user who
 * ran the command, anything else with text or attachments is shown to that user alone (an ephemeral post), and each
 * of `extra_responses` the same way. A custom command's posts are marked from_webhook; its username and icon replace
 * the user's while the override switches are on (the command's own settings first, then the answer's).
 */
export interface AnswerSource {
  /** Built-in answers are the server's own: no from_webhook, no overrides. */
  readonly builtIn: boolean
  readonly username: string
  readonly iconUrl: string
}

/** Usernames by user id, for Slack's <@id> mentions. */
type Usernames = ReadonlyMap<string, string>

const SLACK_USER = /<@([a-z0-9]{26})(?:\|[^<>]*)?>/g

const IdUsernames = rows("CommandResponses usernames", Schema.Struct({ id: Schema.String, username: Schema.String }))

/** The users an answer mentions Slack's way (<@id>), looked up once for the answer and its extra responses. */
const mentionedUsernames = (response: CommandResponse) =>
  Effect.gen(function*() {
    const ids = [...new Set([...JSON.stringify(response).matchAll(SLACK_USER)].map((m) => m[1]))].slice(0, 100)
    if (ids.length === 0) return new Map<string, string>() as Usernames
    const db = yield* Db
    const rows = yield* db.read(db.sql`SELECT id, username FROM users WHERE id = ${anyText(db.sql, ids)}`.pipe(IdUsernames))
    return new Map(rows.map((r) => [r.id, r.username])) as Usernames
  })

/** Slack's markup the integration may use: <url|text> links, <!channel>-style and <@userid> mentions. */
export const slackText = (text: string, usernames: Usernames = new Map()) =>
  text
    .replace(/<!(channel|here|all)>/g, "@$1")
    .replace(SLACK_USER, (whole, id: string) => usernames.has(id) ? `@${usernames.get(id)}` : whole)
    .replace(/<((?:https?|mailto):[^<>|\s]+)\|([^<>]+)>/g, "[$2]($1)")
    .replace(/<((?:https?|mailto):[^<>|\s]+)>/g, "$1")

/** Attachments with Slack's markup converted and field values as strings (Mattermost's StringifySlackFieldValue). */
const slackAttachments = (attachments: ReadonlyArray<Record<string, unknown>>, parse: boolean, usernames: Usernames) =>
  attachments.map((a) => {
    const text = (v: unknown) => typeof v === "string" && parse ? slackText(v, usernames) : v
    const fields = Array.isArray(a.fields)
      ? a.fields.map((f: unknown) => {
        if (typeof f !== "object" || f === null) return f
        const field = f as Record<string, unknown>
        const value = typeof field.value === "string" || field.value === undefined ? field.value : JSON.stringify(field.value)
        return { ...field, value: text(value) }
      })
      : a.fields
    return { ...a, pretext: text(a.pretext), text: text(a.text), title: text(a.title), ...(fields === undefined ? {} : { fields }) }
  })

const invalidType = () => invalid("api.context.invalid_param.app_error", "Invalid or missing post.type parameter.")

const serverType = (type: string) =>
  type === "" || type === "me" || type.startsWith("custom_") ? Effect.succeed(type as "" | "me" | `custom_${string}`) : Effect.fail(invalidType())

const postAnswer = (ctx: CommandContext, source: AnswerSource, response: CommandAnswer, usernames: Usernames) =>
  Effect.gen(function*() {
    let channelId = ctx.channel.id
    if (response.channel_id !== "" && response.channel_id !== ctx.channel.id) {
      const access = yield* Effect.flatMap(Access, (a) => a.channel(ctx.caller, response.channel_id, "write")).pipe(Effect.option)
      if (access._tag === "None" || !access.value.isMember) {
        return yield* forbidden("api.command.command_post.forbidden.app_error", "Specified user is not a member of specified channel.")
      }
      channelId = response.channel_id
    }
    const switches = yield* integrationSwitches
    const trusted: Record<string, unknown> = {}
    let fromIntegration = !source.builtIn
    if (switches.enablePostUsernameOverride) {
      const username = source.username || response.username
      if (username !== "") {
        trusted.override_username = username
        fromIntegration = true
      }
    }
    if (switches.enablePostIconOverride) {
      const icon = source.iconUrl || response.icon_url
      if (icon !== "") fromIntegration = true
      trusted.override_icon_url = icon
    }
    if (fromIntegration) trusted.from_webhook = "true"
    const parse = !response.skip_slack_parsing
    const message = parse ? slackText(response.text, usernames) : response.text
    if (response.attachments !== null) trusted.attachments = slackAttachments(response.attachments, parse, usernames)
    // A system_ type (or any other the server does not know) would let an integration fake the server's messages.
    const type = yield* serverType(response.type)
    const props = response.props ?? {}
    if (response.response_type === "in_channel") {
      // An answer with nothing to show (an acknowledgement before a delayed answer) posts nothing.
      if (message === "" && response.attachments === null && Object.keys(props).length === 0) return
      yield* createPost(ctx.caller, { channel_id: channelId, message, root_id: ctx.rootId, file_ids: [], props, pending_post_id: "", type: "" }, true, trusted, type)
      return
    }
    if (message !== "" || response.attachments !== null) {
      yield* publishEphemeral({ userId: ctx.caller.userId, channelId, rootId: ctx.rootId, message, props: { ...props, ...trusted } })
    }
  })

/** Posts the answer and its extra responses; returns the answer as the client receives it (text converted). */
export const handleResponse = (ctx: CommandContext, source: AnswerSource, response: CommandResponse) =>
  Effect.gen(function*() {
    const usernames = yield* mentionedUsernames(response)
    yield* postAnswer(ctx, source, response, usernames)
    for (const extra of response.extra_responses ?? []) yield* postAnswer(ctx, source, extra, usernames)
    return response.skip_slack_parsing ? response : { ...response, text: slackText(response.text, usernames) }
  })
