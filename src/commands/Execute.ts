import { Effect, Option } from "effect"
import { isId } from "../../layers/Crypto.ts"
import type { CommandAnswer, CommandResponse, ExecuteCommand } from "../../schemas/Command.ts"
import { invalid, notFound } from "../../schemas/Errors.ts"
import { Access } from "../access/Access.ts"
import type { Caller } from "../auth/Authenticate.ts"
import { AppConfig } from "../Config.ts"
import { integrationSwitches } from "../integrations/IntegrationSettings.ts"
import { channelCommands } from "./ChannelCommands.ts"
import { isBuiltIn } from "./BuiltInCommands.ts"
import type { CommandContext } from "./CommandContext.ts"
import { handleResponse } from "./CommandResponses.ts"
import { commandRepo, commandsDisabled } from "./Commands.ts"
import { callCommand } from "./CustomCommand.ts"
import { messageCommands } from "./MessageCommands.ts"
import { statusCommands } from "./StatusCommands.ts"

/**
 * POST /commands/execute, as Mattermost's ExecuteCommand: the trigger is the first word (lower-cased, without its
 * slash) and the rest is the text. A team's custom command with that trigger runs first (its URL is called), then
 * a built-in; anything else is 404. The answer is posted or shown (CommandResponses.ts) and returned to the client.
 */

const RUNS = { ...statusCommands, ...messageCommands, ...channelCommands }

const builtInRun = (trigger: string) => isBuiltIn(trigger) && Object.hasOwn(RUNS, trigger) ? RUNS[trigger as keyof typeof RUNS] : undefined

const notStarted = () => invalid("api.command.execute_command.start.app_error", "No command trigger found.")

const notFoundCommand = (trigger: string) =>
  notFound("api.command.execute_command.not_found.app_error",
    `Command with a trigger of '${trigger}' not found. To send a message beginning with "/", try adding an empty space at the beginning of the message.`)

/** Splits "/trigger text" at the first whitespace: the text keeps whatever follows that one character. */
export const splitCommand = (command: string) => {
  const at = command.search(/\s/)
  const word = at === -1 ? command : command.slice(0, at)
  return { trigger: word.toLowerCase().replace(/^\//, ""), message: at === -1 ? "" : command.slice(at + 1) }
}

/** Where the command runs: the caller must be a member of the channel, and of the team named for a DM or GM. */
const context = (caller: Caller, body: ExecuteCommand) =>
  Effect.gen(function*() {
    if (body.command.length <= 1 || !body.command.startsWith("/") || !isId(body.channel_id)) return yield* notStarted()
    const access = yield* Effect.flatMap(Access, (a) => a.channel(caller, body.channel_id, "write"))
    if (access.channel.delete_at > 0) return yield* invalid("api.command.execute_command.deleted.error", "Can not run command in deleted channel.")
    let teamId = access.channel.team_id
    if (teamId === "") {
      if (body.team_id !== "" && !isId(body.team_id)) return yield* invalid("api.context.invalid_param.app_error", "Invalid team_id parameter.")
      if (body.team_id !== "") yield* Effect.flatMap(Access, (a) => a.team(caller, body.team_id))
      teamId = body.team_id
    }
    const rootId = body.root_id !== "" ? body.root_id : body.parent_id
    if (rootId !== "" && !isId(rootId)) return yield* invalid("api.context.invalid_param.app_error", "Invalid root_id parameter.")
    const siteUrl = (yield* AppConfig).siteUrl
    return { caller, channel: access.channel, teamId, rootId, siteUrl } satisfies CommandContext
  })

const fullResponse = (answer: CommandAnswer): CommandResponse => ({ ...answer, extra_responses: null })

export const execute = (caller: Caller, body: ExecuteCommand) =>
  Effect.gen(function*() {
    const ctx = yield* context(caller, body)
    const { trigger, message } = splitCommand(body.command)
    const repo = yield* commandRepo
    const custom = ctx.teamId === "" ? Option.none() : yield* repo.byTrigger(ctx.teamId, trigger)
    if (Option.isSome(custom)) {
      if (!(yield* integrationSwitches).enableCommands) return yield* commandsDisabled()
      const response = yield* callCommand(ctx, repo, custom.value, message)
      return yield* handleResponse(ctx, { builtIn: false, username: custom.value.username, iconUrl: custom.value.icon_url }, response)
    }
    const run = builtInRun(trigger)
    if (run === undefined) return yield* notFoundCommand(trigger)
    const answer = yield* run(ctx, message)
    return yield* handleResponse(ctx, { builtIn: true, username: "", iconUrl: "" }, fullResponse(answer))
  })
