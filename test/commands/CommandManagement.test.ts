import type { Channel } from "@mattermost/types/channels"
import type { Command } from "@mattermost/types/integrations"
import type { Team } from "@mattermost/types/teams"
import { Schema } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { AutocompleteSuggestion, Command as CommandSchema, CommandToken } from "../../schemas/wire/Command.ts"
import { expectShape, Wire } from "../compat/Shapes.ts"
import { failureOf, newUser, unique } from "../support/Clients.ts"
import { teamOfTwo } from "../support/Teams.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"

/** Custom slash commands' management through Client4: CRUD, who may, bad input, lists and autocomplete. */
let server: TestServer
let admin: Awaited<ReturnType<typeof newUser>>
let team: Awaited<ReturnType<typeof teamOfTwo>>
let outsider: Awaited<ReturnType<typeof newUser>>
let channel: Channel

beforeAll(async () => {
  server = await startServer()
  admin = await newUser(server.url, "admin")
  team = await teamOfTwo(server.url, ["lead", "dev"])
  outsider = await newUser(server.url, "outsider")
  channel = await team.owner.client.getChannelByName(team.team.id, "town-square")
})
afterAll(() => server?.close())

type Client = Awaited<ReturnType<typeof newUser>>["client"]
/** GET /commands/{id}, which Client4 has no method for (the webapp reads commands from lists); fails as Client4 does. */
const getCommand = async (client: Client, id: string): Promise<Command> => {
  const response = await fetch(`${client.getCommandsRoute()}/${id}`, { headers: { authorization: `Bearer ${client.getToken()}` } })
  const body = await response.json()
  if (!response.ok) throw Object.assign(new Error(body.message), { status_code: response.status, server_error_id: body.id })
  return expectShape(body, CommandSchema, "command") as Command
}

const command = (fields: Partial<Command> = {}) =>
  ({ team_id: team.team.id, trigger: unique("deploy"), method: "P", url: "https://ci.example.com/slash", ...fields }) as Command

describe("managing custom commands", () => {
  it("a team admin creates, lists, edits, regenerates, moves and deletes a command", async () => {
    const created = await team.owner.client.addCommand(command({ trigger: "Deploy-Prod", auto_complete: true, auto_complete_desc: "Deploys", auto_complete_hint: "[env]", display_name: "Deploy" }))
    expect(created).toMatchObject({ trigger: "deploy-prod", team_id: team.team.id, creator_id: team.owner.user.id, method: "P", auto_complete: true, delete_at: 0 })
    expect(created.token).toMatch(/^[a-z0-9]{26}$/)
    expectShape(created, CommandSchema, "created command")
    const custom = await team.owner.client.getCustomTeamCommands(team.team.id)
    expect(custom).toEqual([created])
    expectShape(custom, Schema.Array(CommandSchema), "custom commands")
    const all = await team.owner.client.getCommandsList(team.team.id)
    expectShape(all, Schema.Array(CommandSchema), "commands with built-ins")
    expect(all.map((c) => c.trigger)).toEqual(expect.arrayContaining(["away", "me", "invite", "deploy-prod"]))
    expect(all.find((c) => c.trigger === "away")).toMatchObject({ id: "", auto_complete: true, auto_complete_desc: "Set your status away" })

    const edited = await team.owner.client.editCommand({ ...created, url: "https://ci.example.com/v2", method: "G", username: "ci" })
    expect(edited).toMatchObject({ id: created.id, token: created.token, url: "https://ci.example.com/v2", method: "G", username: "ci", create_at: created.create_at })
    expectShape(edited, CommandSchema, "edited command")
    const { token } = expectShape(await team.owner.client.regenCommandToken(created.id), CommandToken, "regenerated token")
    expect(token).not.toBe(created.token)
    expect((await getCommand(team.owner.client, created.id)).token).toBe(token)

    const elsewhere: Team = await team.owner.client.createTeam({ name: unique("team"), display_name: "Elsewhere", type: "O" } as Team)
    const moved = await fetch(`${server.url}/api/v4/commands/${created.id}/move`, {
      method: "PUT",
      headers: { authorization: `Bearer ${team.owner.client.getToken()}`, "content-type": "application/json" },
      body: JSON.stringify({ team_id: elsewhere.id })
    })
    expect(await moved.json()).toEqual({ status: "OK" })
    expect((await getCommand(team.owner.client, created.id)).team_id).toBe(elsewhere.id)
    expect(await team.owner.client.getCustomTeamCommands(team.team.id)).toEqual([])

    await team.owner.client.deleteCommand(created.id)
    expect(await failureOf(getCommand(team.owner.client, created.id))).toEqual({ status: 404, id: "store.sql_command.save.get.app_error" })
  })

  it("members use commands but cannot create, see or change them; system admins manage every team's", async () => {
    const created = await team.owner.client.addCommand(command({ auto_complete: true }))
    const hidden = await team.owner.client.addCommand(command({ auto_complete: false }))
    expect(await failureOf(team.member.client.addCommand(command()))).toEqual({ status: 403, id: "api.context.permissions.app_error" })
    const missing = { status: 404, id: "store.sql_command.save.get.app_error" }
    expect(await failureOf(getCommand(team.member.client, created.id))).toEqual(missing)
    expect(await failureOf(team.member.client.editCommand({ ...created, url: "https://evil.example.com" }))).toEqual(missing)
    expect(await failureOf(team.member.client.regenCommandToken(created.id))).toEqual(missing)
    expect(await failureOf(team.member.client.deleteCommand(created.id))).toEqual(missing)
    expect(await failureOf(getCommand(outsider.client, created.id))).toEqual(missing)
    expect((await failureOf(team.member.client.getCustomTeamCommands(team.team.id))).status).toBe(403)
    expect((await failureOf(outsider.client.getCommandsList(team.team.id))).status).toBe(403)

    // A member's list is what autocomplete offers: no token, URL or creator, and no command without autocomplete.
    const seen = await team.member.client.getCommandsList(team.team.id)
    expectShape(seen, Schema.Array(CommandSchema), "a member's commands")
    expect(seen.find((c) => c.id === hidden.id)).toBeUndefined()
    expect(seen.find((c) => c.id === created.id)).toMatchObject({ token: "", url: "", creator_id: "", trigger: created.trigger })

    // Another team admin manages the first one's command; a creator who is no longer team admin does not.
    await team.owner.client.updateTeamMemberSchemeRoles(team.team.id, team.member.user.id, true, true)
    const theirs = await team.member.client.addCommand(command())
    expect((await getCommand(team.member.client, created.id)).token).toBe(created.token)
    await team.owner.client.updateTeamMemberSchemeRoles(team.team.id, team.member.user.id, true, false)
    expect(await failureOf(getCommand(team.member.client, theirs.id))).toEqual(missing)
    expect((await getCommand(team.owner.client, theirs.id)).creator_id).toBe(team.member.user.id)

    expect((await getCommand(admin.client, theirs.id)).id).toBe(theirs.id)
    await admin.client.deleteCommand(theirs.id)
  })

  it("refuses bad input with Mattermost's errors, and triggers taken by a built-in or another command", async () => {
    const taken = await team.owner.client.addCommand(command())
    const cases: Array<[Partial<Command>, string]> = [
      [{ trigger: "" }, "model.command.is_valid.trigger.app_error"],
      [{ trigger: "two words" }, "model.command.is_valid.trigger.app_error"],
      [{ trigger: "a/b" }, "model.command.is_valid.trigger.app_error"],
      [{ trigger: "x".repeat(129) }, "model.command.is_valid.trigger.app_error"],
      [{ url: "" }, "model.command.is_valid.url.app_error"],
      [{ url: "ftp://files.example.com" }, "model.command.is_valid.url_http.app_error"],
      [{ method: "X" as "P" }, "model.command.is_valid.method.app_error"],
      [{ display_name: "d".repeat(65) }, "model.command.is_valid.display_name.app_error"],
      [{ team_id: "" }, "api.context.invalid_param.app_error"],
      [{ trigger: "away" }, "api.command.duplicate_trigger.app_error"],
      [{ trigger: "ME" }, "api.command.duplicate_trigger.app_error"],
      [{ trigger: taken.trigger }, "api.command.duplicate_trigger.app_error"]
    ]
    for (const [fields, id] of cases) {
      expect({ fields, failure: await failureOf(team.owner.client.addCommand(command(fields))) }).toEqual({ fields, failure: { status: 400, id } })
    }
    const other = await team.owner.client.addCommand(command())
    expect(await failureOf(team.owner.client.editCommand({ ...other, trigger: taken.trigger }))).toEqual({ status: 400, id: "api.command.duplicate_trigger.app_error" })
    expect(await failureOf(team.owner.client.editCommand({ ...other, trigger: "shrug" }))).toEqual({ status: 400, id: "api.command.duplicate_trigger.app_error" })
    expect(await failureOf(team.owner.client.editCommand({ ...other, team_id: admin.user.id }))).toEqual({ status: 400, id: "api.command.team_mismatch.app_error" })
    const raw = (path: string, method: string, body: string) =>
      fetch(`${server.url}/api/v4/commands${path}`, { method, headers: { authorization: `Bearer ${team.owner.client.getToken()}`, "content-type": "application/json" }, body })
    const mismatch = await raw(`/${other.id}`, "PUT", JSON.stringify({ ...other, id: taken.id }))
    expect(mismatch.status).toBe(400)
    const garbled = await raw("", "POST", "{not json")
    expect(garbled.status).toBe(400)
    expect(garbled.headers.get("content-type")).toBe("application/json")
    expect((await raw("/nonsense", "DELETE", "")).status).toBe(404)
    expect((await failureOf(team.owner.client.getCommandsList(""))).status).toBe(400)
  })
})

describe("autocomplete", () => {
  it("lists built-ins and the team's autocomplete commands, and suggests by the typed prefix with hints", async () => {
    const deploy = await team.owner.client.addCommand(command({ trigger: "zdeploy", auto_complete: true, auto_complete_desc: "Deploy a service", auto_complete_hint: "[service] [env]" }))
    const list = await team.member.client.getAutocompleteCommandsList(team.team.id)
    expectShape(list, Schema.Array(CommandSchema), "autocomplete commands")
    expect(list.map((c) => c.trigger)).toEqual(expect.arrayContaining(["away", "shrug", "zdeploy"]))
    expect(list.find((c) => c.trigger === "zdeploy")).toMatchObject({ id: deploy.id, token: "", url: "" })

    const args = { channel_id: channel.id, team_id: team.team.id }
    expect(await team.member.client.getCommandAutocompleteSuggestionsList("/zde", team.team.id, args)).toEqual([
      { Complete: "zdeploy", Suggestion: "zdeploy", Hint: "[service] [env]", Description: "Deploy a service", IconData: "" }
    ])
    const a = await team.member.client.getCommandAutocompleteSuggestionsList("/a", team.team.id, args)
    expectShape(a, Schema.Array(AutocompleteSuggestion), "suggestions")
    expect(a.map((s) => s.Suggestion)).toEqual(["away"])
    expect((await team.member.client.getCommandAutocompleteSuggestionsList("/INV", team.team.id, args))[0]).toMatchObject({ Complete: "invite", Hint: "@[username]... ~[channel]...", Description: "Invite a user to a channel" })
    expect(await team.member.client.getCommandAutocompleteSuggestionsList("/away now", team.team.id, args)).toEqual([])
    expect((await failureOf(team.member.client.getCommandAutocompleteSuggestionsList("", team.team.id, args))).status).toBe(400)
    expect((await failureOf(outsider.client.getCommandAutocompleteSuggestionsList("/a", team.team.id, args))).status).toBe(403)
    expect((await failureOf(outsider.client.getAutocompleteCommandsList(team.team.id))).status).toBe(403)
  })

  it("EnableCommands turns custom commands off (and says so) while built-ins keep working", async () => {
    const custom = await team.owner.client.addCommand(command({ auto_complete: true }))
    expect(await team.member.client.getClientConfig() as Record<string, string>).toMatchObject({ EnableCommands: "true" })
    await admin.client.patchConfig({ ServiceSettings: { EnableCommands: false } } as never)
    try {
      expect(await team.member.client.getClientConfig() as Record<string, string>).toMatchObject({ EnableCommands: "false" })
      expect(expectShape(await admin.client.getConfig(), Wire.Config, "config").ServiceSettings.EnableCommands).toBe(false)
      expect(await failureOf(team.owner.client.addCommand(command()))).toEqual({ status: 501, id: "api.command.disabled.app_error" })
      expect(await failureOf(team.member.client.executeCommand(`/${custom.trigger}`, { channel_id: channel.id }))).toEqual({ status: 501, id: "api.command.disabled.app_error" })
      expect((await team.member.client.executeCommand("/away", { channel_id: channel.id })).text).toBe("You are now away")
      expect((await team.member.client.getAutocompleteCommandsList(team.team.id)).some((c) => c.trigger === custom.trigger)).toBe(false)
    } finally {
      await admin.client.patchConfig({ ServiceSettings: { EnableCommands: true } } as never)
    }
  })
})
