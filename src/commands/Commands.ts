import { Clock, Effect, Option } from "effect"
import { isId, newId } from "../../layers/Crypto.ts"
import { Db } from "../../layers/Db.ts"
import type { CreateCommand, UpdateCommand } from "../../schemas/Command.ts"
import type { Command as CommandWire } from "../../schemas/wire/Command.ts"
import { disabled, invalid as invalidValue, notFound, permissionDenied } from "../../schemas/Errors.ts"
import { Access } from "../access/Access.ts"
import type { Caller } from "../auth/Authenticate.ts"
import { integrationSwitches } from "../integrations/IntegrationSettings.ts"
import { builtInWire, BUILT_INS, isBuiltIn } from "./BuiltInCommands.ts"
import { type CommandRow, type CommandValues, makeCommandRepo } from "./CommandRepo.ts"

/**
 * Custom slash commands, with Mattermost's default permissions: manage_slash_commands and
 * manage_others_slash_commands belong to team admins (and system admins), so they create a team's commands and
 * manage every one of them; a member may use them (execute, autocomplete) but not see their settings. A command
 * someone may not manage answers 404, as in Mattermost, so its existence does not leak.
 */

export const toWire = (row: CommandRow): CommandWire => ({
  id: row.id,
  token: row.token,
  create_at: Number(row.create_at),
  update_at: Number(row.update_at),
  delete_at: Number(row.delete_at),
  creator_id: row.creator_id,
  team_id: row.team_id,
  trigger: row.trigger,
  method: row.method,
  username: row.username,
  icon_url: row.icon_url,
  auto_complete: row.auto_complete,
  auto_complete_desc: row.auto_complete_desc,
  auto_complete_hint: row.auto_complete_hint,
  display_name: row.display_name,
  description: row.description,
  url: row.url
})

/** What members see of a command (Mattermost's Command.Sanitize): no token, URL or creator. */
const sanitized = (row: CommandRow): CommandWire => ({ ...toWire(row), token: "", creator_id: "", method: "", url: "", username: "", icon_url: "" })

export const commandRepo = Effect.map(Db, makeCommandRepo)

export const commandsDisabled = () => disabled("api.command.disabled.app_error", "Commands have been disabled by the system admin.")

const enabled = Effect.flatMap(integrationSwitches, (s) => s.enableCommands ? Effect.void : Effect.fail(commandsDisabled()))

const commandMissing = () => notFound("store.sql_command.save.get.app_error", "Unable to get the command.")

/** Whether the caller holds manage_slash_commands in the team (team and system admins by default). */
const managesTeam = (caller: Caller, teamId: string) =>
  caller.can("manage_slash_commands")
    ? Effect.succeed(true)
    : Effect.flatMap(Access, (a) => a.teamMember(caller, teamId)).pipe(Effect.map((t) => t.can("manage_slash_commands")), Effect.orElseSucceed(() => false))

/** A command the caller manages, or 404 whether it does not exist or is out of the caller's reach. */
const managed = (caller: Caller, commandId: string) =>
  Effect.gen(function*() {
    const row = isId(commandId) ? yield* (yield* commandRepo).byId(commandId) : Option.none<CommandRow>()
    if (Option.isNone(row) || !(yield* managesTeam(caller, row.value.team_id))) return yield* commandMissing()
    return row.value
  })

const TRIGGER_MAX = 128
const URL_MAX = 1024

const invalid = (field: string, message: string) => invalidValue(`model.command.is_valid.${field}.app_error`, message)

/** Mattermost's Command.IsValid on what a client sets; the trigger is lower-cased, as Mattermost stores it. */
const values = (input: CreateCommand | UpdateCommand) =>
  Effect.gen(function*() {
    const trigger = input.trigger.toLowerCase()
    if (trigger.length < 1 || trigger.length > TRIGGER_MAX || trigger.includes("/") || /\s/.test(trigger)) {
      return yield* invalid("trigger", "Invalid trigger.")
    }
    if (input.url === "" || input.url.length > URL_MAX) return yield* invalid("url", "Invalid URL.")
    if (!/^https?:\/\/[^\s/]+/i.test(input.url)) {
      return yield* invalid("url_http", "Invalid URL. Must be a valid URL and start with http:// or https://.")
    }
    if (input.method !== "P" && input.method !== "G") return yield* invalid("method", "Invalid Method.")
    if (input.display_name.length > 64) return yield* invalid("display_name", "Invalid title.")
    if (input.description.length > 128) return yield* invalid("description", "Invalid description.")
    return {
      trigger,
      method: input.method,
      url: input.url,
      username: input.username,
      iconUrl: input.icon_url,
      autoComplete: input.auto_complete,
      autoCompleteDesc: input.auto_complete_desc,
      autoCompleteHint: input.auto_complete_hint,
      displayName: input.display_name,
      description: input.description
    } satisfies CommandValues
  })

const triggerInUse = () => invalidValue("api.command.duplicate_trigger.app_error", "This trigger word is already in use. Please choose another word.")

/** A trigger is free in a team when no built-in and no other live command of the team has it. */
const ensureFreeTrigger = (teamId: string, trigger: string, exceptId: string) =>
  Effect.gen(function*() {
    if (isBuiltIn(trigger) || (yield* (yield* commandRepo).triggerTaken(teamId, trigger, exceptId))) return yield* triggerInUse()
  })

const invalidTeam = () => invalidValue("api.context.invalid_param.app_error", "Invalid or missing team_id parameter.")

export const create = (caller: Caller, input: CreateCommand) =>
  Effect.gen(function*() {
    yield* enabled
    if (!isId(input.team_id)) return yield* invalidTeam()
    if (!(yield* managesTeam(caller, input.team_id))) return yield* permissionDenied("slash commands of this team")
    const v = yield* values(input)
    yield* ensureFreeTrigger(input.team_id, v.trigger, "")
    const now = yield* Clock.currentTimeMillis
    const row = yield* (yield* commandRepo).insert({ id: newId(), token: newId(), creatorId: caller.userId, teamId: input.team_id, now }, v)
    // Two creations racing for one trigger: the unique index lets one through.
    if (Option.isNone(row)) return yield* triggerInUse()
    return toWire(row.value)
  })

export const get = (caller: Caller, commandId: string) =>
  Effect.gen(function*() {
    yield* enabled
    return toWire(yield* managed(caller, commandId))
  })

export const update = (caller: Caller, commandId: string, input: UpdateCommand) =>
  Effect.gen(function*() {
    yield* enabled
    const old = yield* managed(caller, commandId)
    if (input.team_id !== "" && input.team_id !== old.team_id) {
      return yield* invalidValue("api.command.team_mismatch.app_error", "Unable to update commands across teams.")
    }
    const v = yield* values(input)
    yield* ensureFreeTrigger(old.team_id, v.trigger, old.id)
    const row = yield* (yield* commandRepo).update(old.id, v, yield* Clock.currentTimeMillis)
    if (Option.isNone(row)) return yield* commandMissing()
    return toWire(row.value)
  })

export const move = (caller: Caller, commandId: string, teamId: string) =>
  Effect.gen(function*() {
    yield* enabled
    if (!isId(teamId)) return yield* invalidTeam()
    yield* Effect.flatMap(Access, (a) => a.team(caller, teamId))
    if (!(yield* managesTeam(caller, teamId))) return yield* permissionDenied("slash commands of this team")
    const old = yield* managed(caller, commandId)
    if (old.team_id === teamId) return
    yield* ensureFreeTrigger(teamId, old.trigger, old.id)
    const row = yield* (yield* commandRepo).move(old.id, teamId, yield* Clock.currentTimeMillis)
    if (Option.isNone(row)) return yield* commandMissing()
  })

export const regenerateToken = (caller: Caller, commandId: string) =>
  Effect.gen(function*() {
    yield* enabled
    const old = yield* managed(caller, commandId)
    const row = yield* (yield* commandRepo).regenerateToken(old.id, newId(), yield* Clock.currentTimeMillis)
    if (Option.isNone(row)) return yield* commandMissing()
    return { token: row.value.token }
  })

export const remove = (caller: Caller, commandId: string) =>
  Effect.gen(function*() {
    yield* enabled
    const old = yield* managed(caller, commandId)
    yield* (yield* commandRepo).remove(old.id, yield* Clock.currentTimeMillis)
  })

/**
 * GET /commands?team_id: for a team admin every built-in and the team's commands (only the latter with
 * custom_only); for a member what autocomplete offers. custom_only takes manage_slash_commands.
 */
export const list = (caller: Caller, teamId: string, customOnly: boolean) =>
  Effect.gen(function*() {
    if (!isId(teamId)) return yield* invalidTeam()
    yield* Effect.flatMap(Access, (a) => a.team(caller, teamId))
    const manages = yield* managesTeam(caller, teamId)
    if (customOnly && !manages) return yield* permissionDenied("slash commands of this team")
    if (!manages) return yield* autocompleteList(caller, teamId)
    const switches = yield* integrationSwitches
    const custom = switches.enableCommands ? (yield* (yield* commandRepo).ofTeam(teamId)).map(toWire) : []
    return customOnly ? custom : [...BUILT_INS.map(builtInWire), ...custom]
  })

/** What "/" offers in a team: built-ins and custom commands with autocomplete on (custom ones sanitized). */
export const autocompleteList = (caller: Caller, teamId: string) =>
  Effect.gen(function*() {
    yield* Effect.flatMap(Access, (a) => a.team(caller, teamId))
    const switches = yield* integrationSwitches
    const custom = switches.enableCommands ? (yield* (yield* commandRepo).ofTeam(teamId)).filter((c) => c.auto_complete) : []
    return [...BUILT_INS.filter((b) => b.autoComplete).map(builtInWire), ...custom.map(sanitized)]
  })
