import { HttpRouter, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect, Option, Schema } from "effect"
import { CreateCommand, ExecuteCommand, MoveCommand, OpenDialog, SubmitDialog, UpdateCommand } from "../../schemas/Command.ts"
import { AutocompleteSuggestion, Command, CommandResponse, CommandToken, SubmitDialogResponse } from "../../schemas/wire/Command.ts"
import { authed, CurrentCaller, publicRoute } from "../auth/Guards.ts"
import { badRequest, invalidParam } from "../http/ApiError.ts"
import * as Decode from "../http/Decode.ts"
import { ok, respondWith, respondWithAll } from "../http/Respond.ts"
import { suggestions } from "./Autocomplete.ts"
import * as Commands from "./Commands.ts"
import { parseAnswer } from "./CustomCommand.ts"
import * as Dialogs from "./Dialogs.ts"
import { execute } from "./Execute.ts"
import { answerLater } from "./ResponseUrl.ts"

/**
 * Slash commands: custom commands under /api/v4/commands, execution, autocomplete under /api/v4/teams/{id}/commands,
 * delayed answers at /hooks/commands/{id} (not under /api/v4), and interactive dialogs under /api/v4/actions/dialogs.
 */

const CommandParams = Schema.Struct({ command_id: Schema.String })
const TeamParams = Schema.Struct({ team_id: Decode.Id })
const ListQuery = Schema.Struct({
  team_id: Schema.optionalWith(Schema.String, { default: () => "" }),
  custom_only: Schema.optionalWith(Decode.QueryBool, { default: () => false })
})
const SuggestionsQuery = Schema.Struct({ user_input: Schema.optionalWith(Schema.String, { default: () => "" }) })

const create = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  return yield* respondWith(Command, yield* Commands.create(caller, yield* Decode.body(CreateCommand)), 201)
})

const list = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const q = yield* Decode.query(ListQuery)
  return yield* respondWithAll(Command, yield* Commands.list(caller, q.team_id, q.custom_only))
})

const get = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const { command_id } = yield* Decode.params(CommandParams)
  return yield* respondWith(Command, yield* Commands.get(caller, command_id))
})

const update = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const { command_id } = yield* Decode.params(CommandParams)
  const body = yield* Decode.body(UpdateCommand)
  if (body.id !== command_id) return yield* badRequest("api.context.invalid_param.app_error", "Invalid or missing command parameter in request body.")
  return yield* respondWith(Command, yield* Commands.update(caller, command_id, body))
})

const move = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const { command_id } = yield* Decode.params(CommandParams)
  yield* Commands.move(caller, command_id, (yield* Decode.body(MoveCommand)).team_id)
  return ok()
})

const regenToken = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const { command_id } = yield* Decode.params(CommandParams)
  return yield* respondWith(CommandToken, yield* Commands.regenerateToken(caller, command_id))
})

const remove = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const { command_id } = yield* Decode.params(CommandParams)
  yield* Commands.remove(caller, command_id)
  return ok()
})

const run = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  return yield* respondWith(CommandResponse, yield* execute(caller, yield* Decode.body(ExecuteCommand)))
})

const autocomplete = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const { team_id } = yield* Decode.params(TeamParams)
  return yield* respondWithAll(Command, yield* Commands.autocompleteList(caller, team_id))
})

const autocompleteSuggestions = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const { team_id } = yield* Decode.params(TeamParams)
  const { user_input } = yield* Decode.query(SuggestionsQuery)
  if (user_input === "") return yield* invalidParam("userInput")
  return yield* respondWithAll(AutocompleteSuggestion, yield* suggestions(caller, team_id, user_input))
})

/** A delayed answer is at most what an integration may answer directly. */
const ANSWER_LIMIT = 1024 * 1024
const unparsable = () => badRequest("web.command_webhook.parse.app_error", "Unable to parse incoming data.")

const responseUrl = Effect.gen(function*() {
  const { hook_id } = yield* Decode.params(Schema.Struct({ hook_id: Schema.String }))
  const request = yield* HttpServerRequest.HttpServerRequest
  const text = yield* Decode.textBody(ANSWER_LIMIT)
  const parsed = parseAnswer(request.headers["content-type"] ?? "", text)
  if (Option.isNone(parsed) || parsed.value === null) return yield* unparsable()
  yield* answerLater(hook_id, parsed.value)
  return HttpServerResponse.text("ok", { contentType: "text/plain" })
})

const openDialog = Effect.gen(function*() {
  yield* Dialogs.open(yield* Decode.body(OpenDialog))
  return ok()
})

const submitDialog = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  return yield* respondWith(SubmitDialogResponse, yield* Dialogs.submit(caller, yield* Decode.body(SubmitDialog)))
})

export const routes = HttpRouter.empty.pipe(
  HttpRouter.post("/api/v4/commands", authed(create)),
  HttpRouter.get("/api/v4/commands", authed(list)),
  HttpRouter.post("/api/v4/commands/execute", authed(run)),
  HttpRouter.get("/api/v4/commands/:command_id", authed(get)),
  HttpRouter.put("/api/v4/commands/:command_id", authed(update)),
  HttpRouter.del("/api/v4/commands/:command_id", authed(remove)),
  HttpRouter.put("/api/v4/commands/:command_id/move", authed(move)),
  HttpRouter.put("/api/v4/commands/:command_id/regen_token", authed(regenToken)),
  HttpRouter.get("/api/v4/teams/:team_id/commands/autocomplete", authed(autocomplete)),
  HttpRouter.get("/api/v4/teams/:team_id/commands/autocomplete_suggestions", authed(autocompleteSuggestions)),
  HttpRouter.post("/hooks/commands/:hook_id", publicRoute(responseUrl)),
  HttpRouter.post("/api/v4/actions/dialogs/open", publicRoute(openDialog)),
  HttpRouter.post("/api/v4/actions/dialogs/submit", authed(submitDialog))
)
