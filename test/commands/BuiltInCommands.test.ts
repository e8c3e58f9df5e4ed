import type { Channel } from "@mattermost/types/channels"
import type { CommandResponse } from "@mattermost/types/integrations"
import type { Post } from "@mattermost/types/posts"
import { beforeAll, describe, expect, it } from "vitest"
import { CommandResponse as CommandResponseSchema } from "../../schemas/wire/Command.ts"
import { expectShape } from "../compat/Shapes.ts"
import { client4, failureOf, newUser, unique } from "../support/Clients.ts"
import { serverForFile } from "../support/FileServer.ts"
import { teamOfTwo } from "../support/Teams.ts"
import { eventually } from "../realtime/Sockets.ts"

/** Every built-in slash command through Client4's executeCommand, with Mattermost's answers and effects. */
const file = serverForFile()
let team: Awaited<ReturnType<typeof teamOfTwo>>
let carol: Awaited<ReturnType<typeof newUser>>
let dave: Awaited<ReturnType<typeof newUser>>
let ops: Channel
let townSquare: Channel

beforeAll(async () => {
  const url = file.server.url
  team = await teamOfTwo(url, ["lead", "dev"])
  carol = await newUser(url, "carol")
  dave = await newUser(url, "dave")
  await team.owner.client.addToTeam(team.team.id, carol.user.id)
  ops = await team.owner.client.createChannel({ team_id: team.team.id, name: unique("ops"), display_name: "Ops", type: "O" } as Channel)
  await team.owner.client.addToChannel(team.member.user.id, ops.id)
  townSquare = await team.owner.client.getChannelByName(team.team.id, "town-square")
})

type Who = { client: ReturnType<typeof client4>; user: { id: string } }
/** Runs a command; the answer must be the wire CommandResponse. */
const run = async (who: Who, command: string, channelId = ops.id): Promise<CommandResponse> => {
  const response = await who.client.executeCommand(command, { channel_id: channelId, team_id: team.team.id })
  expectShape(response, CommandResponseSchema, "command response")
  return response
}

/** The ephemeral post the user's sockets got for this text. */
const ephemeralTo = (userId: string, text: string) =>
  eventually(() =>
    file.log.named("ephemeral_message").map((e) => JSON.parse(e.data.post as string) as Post)
      .find((p) => p.user_id === userId && p.message === text && p.type === "system_ephemeral"), `ephemeral "${text}"`)

const lastPost = async (channelId: string) => {
  const posts = await team.owner.client.getPosts(channelId, 0, 1)
  return posts.posts[posts.order[0]]
}

describe("status commands", () => {
  it("/away, /dnd, /offline and /online set the status and say so, ephemerally", async () => {
    const cases = [
      ["/away", "away", "You are now away"],
      ["/dnd", "dnd", "Do Not Disturb is enabled. You will not receive desktop or mobile push notifications until Do Not Disturb is turned off."],
      ["/offline", "offline", "You are now offline"],
      ["/online", "online", "You are now online"]
    ] as const
    for (const [command, status, text] of cases) {
      const response = await run(team.member, command)
      expect(response).toMatchObject({ response_type: "ephemeral", text, goto_location: "", extra_responses: null })
      expect((await team.member.client.getStatus(team.member.user.id)).status).toBe(status)
      const shown = await ephemeralTo(team.member.user.id, text)
      expect(shown.channel_id).toBe(ops.id)
    }
  })

  it("/status sets a custom status (emoji optional) and `/status clear` clears it", async () => {
    expect((await run(team.member, "/status :coffee: Lunch break")).text).toBe(
      "Your status is set to “:coffee: Lunch break”. You can change your status from the status popover in the channel sidebar header."
    )
    const props = (await team.member.client.getMe()).props as Record<string, string>
    expect(JSON.parse(props.customStatus)).toMatchObject({ emoji: "coffee", text: "Lunch break" })
    await run(team.member, "/status In a meeting")
    expect(JSON.parse(((await team.member.client.getMe()).props as Record<string, string>).customStatus)).toMatchObject({ emoji: "speech_balloon", text: "In a meeting" })
    expect((await run(team.member, "/status clear")).text).toBe("Your status was cleared.")
    expect(((await team.member.client.getMe()).props as Record<string, string>).customStatus).toBeUndefined()
  })

  it("/expand and /collapse store the link preview preference and announce it", async () => {
    expect((await run(team.member, "/collapse")).text).toBe("Image links now collapse by default")
    expect(await team.member.client.getMyPreferences()).toContainEqual(expect.objectContaining({ category: "display_settings", name: "collapse_previews", value: "true" }))
    expect((await run(team.member, "/expand")).text).toBe("Image links now expand by default")
    expect(await team.member.client.getMyPreferences()).toContainEqual(expect.objectContaining({ name: "collapse_previews", value: "false" }))
    expect(file.log.named("preference_changed").some((e) => e.broadcast.user_id === team.member.user.id)).toBe(true)
  })

  it("/help, /search, /settings and /shortcuts answer what Mattermost's server answers", async () => {
    expect((await run(team.member, "/help")).text).toContain("[View documentation and guides](https://mattermost.com/pl/help/)")
    expect((await run(team.member, "/search term")).text).toBe("The search command is not supported on your device.")
    expect((await run(team.member, "/settings")).text).toBe("The settings command is not supported on your device.")
    expect((await run(team.member, "/shortcuts")).text).toBe("The shortcuts command is not supported on your device.")
  })

  it("/logout ends the session the command came from and sends the client to the login page", async () => {
    const session = client4(file.server.url)
    await session.login(team.member.username, team.member.password)
    expect((await session.executeCommand("/logout", { channel_id: ops.id, team_id: team.team.id })).goto_location).toBe("/login")
    expect((await failureOf(session.getMe())).status).toBe(401)
    expect((await team.member.client.getMe()).id).toBe(team.member.user.id)
  })
})

describe("message commands", () => {
  it("/me posts the action in italics with type me; /shrug appends the shrug", async () => {
    expect(await run(team.member, "/me waves")).toMatchObject({ response_type: "in_channel", type: "me", text: "*waves*" })
    expect(await lastPost(ops.id)).toMatchObject({ type: "me", message: "*waves*", user_id: team.member.user.id })
    await run(team.member, "/shrug oh well")
    expect((await lastPost(ops.id)).message).toBe("oh well ¯\\\\\\_(ツ)\\_/¯")
    expect((await lastPost(ops.id)).props?.from_webhook).toBeUndefined()
  })

  it("/code posts an indented code block; without text it explains", async () => {
    await run(team.member, "/code let x = 1\nx += 1")
    expect((await lastPost(ops.id)).message).toBe("    let x = 1\n    x += 1")
    expect((await run(team.member, "/code")).text).toBe("A message must be provided with the /code command.")
  })

  it("/echo posts the text in the background; a delay over the limit is refused", async () => {
    expect(await run(team.member, "/echo \"echoed text\" 0")).toMatchObject({ response_type: "", text: "" })
    const found = await eventually(() => file.log.named("posted").map((e) => JSON.parse(e.data.post as string) as Post).find((p) => p.message === "echoed text"), "the echo")
    expect(found.user_id).toBe(team.member.user.id)
    const asked = Date.now()
    await run(team.member, "/echo a second later 1")
    const delayed = await eventually(() => file.log.named("posted").map((e) => JSON.parse(e.data.post as string) as Post).find((p) => p.message === "a second later"), "the delayed echo")
    expect(delayed.create_at - asked).toBeGreaterThanOrEqual(900)
    expect((await run(team.member, "/echo too late 20000")).text).toBe("Delays must be under 10000 seconds.")
    expect((await run(team.member, "/echo")).text).toBe("A message must be provided with the /echo command.")
  })

  it("/msg opens the DM, posts the text there and sends the client to it", async () => {
    const response = await run(team.member, `/msg @${carol.username} hello carol`)
    const [a, b] = [team.member.user.id, carol.user.id].sort()
    expect(response.goto_location).toBe(`${file.server.config.siteUrl}/${team.team.name}/channels/${a}__${b}`)
    const direct = (await carol.client.getMyChannels(team.team.id)).find((c) => c.name === `${a}__${b}`)!
    expect(Object.values((await carol.client.getPosts(direct.id, 0, 1)).posts).map((p) => p.message)).toEqual(["hello carol"])
    expect((await run(team.member, "/msg @nobody-here hi")).text).toBe("Unable to find the user.")
    expect((await run(team.member, `/msg @${team.member.username} hi`)).text).toBe("Unable to find the user.")
  })

  it("/groupmsg opens the GM with everyone named and posts there; unknown names are listed", async () => {
    const response = await run(team.member, `/groupmsg @${carol.username},@${team.owner.username} hi all`)
    const gm = (await carol.client.getMyChannels(team.team.id)).find((c) => c.type === "G")!
    expect(response.goto_location).toBe(`${file.server.config.siteUrl}/${team.team.name}/channels/${gm.name}`)
    expect(Object.values((await carol.client.getPosts(gm.id, 0, 5)).posts).map((p) => p.message)).toContain("hi all")
    expect((await run(team.member, "/groupmsg @ghost1,@ghost2 hey")).text).toBe("Unable to find the users: @ghost1, @ghost2")
  })
})

describe("channel commands", () => {
  it("/join and /open enter a public channel and go there; an unknown one is explained", async () => {
    const lobby = await team.owner.client.createChannel({ team_id: team.team.id, name: unique("lobby"), display_name: "Lobby", type: "O" } as Channel)
    const response = await run(carol, `/join ~${lobby.name}`, townSquare.id)
    expect(response.goto_location).toBe(`${file.server.config.siteUrl}/${team.team.name}/channels/${lobby.name}`)
    expect((await carol.client.getMyChannelMember(lobby.id)).user_id).toBe(carol.user.id)
    expect((await run(carol, `/open ${lobby.name}`, townSquare.id)).goto_location).toContain(`/channels/${lobby.name}`)
    expect((await run(carol, "/join ~no-such-channel", townSquare.id)).text).toBe("An error occurred while listing channels.")
    const secret = await team.owner.client.createChannel({ team_id: team.team.id, name: unique("secret"), display_name: "Secret", type: "P" } as Channel)
    expect((await run(carol, `/join ~${secret.name}`, townSquare.id)).text).toBe("Unable to find the channel.")

    expect((await run(carol, "/leave", lobby.id)).goto_location).toBe(`${file.server.config.siteUrl}/${team.team.name}/channels/town-square`)
    expect((await failureOf(carol.client.getMyChannelMember(lobby.id))).status).toBe(404)
    expect((await run(carol, "/leave", townSquare.id)).text).toBe("Unable to leave the default channel town-square.")
  })

  it("/invite adds users to this or named channels and reports who was in or outside the team", async () => {
    const room = await team.owner.client.createChannel({ team_id: team.team.id, name: unique("room"), display_name: "Room", type: "O" } as Channel)
    const other = await team.owner.client.createChannel({ team_id: team.team.id, name: unique("other"), display_name: "Other", type: "O" } as Channel)
    expect((await run(team.owner, `/invite @${carol.username}`, room.id)).text).toBe("")
    expect((await carol.client.getMyChannelMember(room.id)).channel_id).toBe(room.id)
    expect((await run(team.owner, `/invite @${carol.username}`, room.id)).text).toBe(`@${carol.username} is already in the channel.`)
    expect((await run(team.owner, `/invite @${carol.username} ~${other.name}`, room.id)).text).toBe(`@${carol.username} added to ${other.name} channel.`)
    expect((await run(team.owner, `/invite @${dave.username}`, room.id)).text).toBe(`You can add @${dave.username} to this channel once they are members of the **Team** team.`)
    expect((await run(team.owner, "/invite @ghost", room.id)).text).toBe("We couldn't find the user ghost. They may have been deactivated by the System Administrator.")
    expect((await run(team.owner, "/invite", room.id)).text).toBe("Missing Username and/or Channel.")

    expect(await run(team.owner, `/kick @${carol.username}`, room.id)).toMatchObject({ text: "" })
    expect((await failureOf(carol.client.getMyChannelMember(room.id))).status).toBe(404)
    expect((await run(team.owner, `/remove @${carol.username}`, room.id)).text).toBe(`${carol.username} is not a member of this channel.`)
    expect((await run(team.owner, "/kick", room.id)).text).toBe("A message must be provided with the /remove or /kick command.")
    expect((await run(team.owner, `/kick @${carol.username}`, townSquare.id)).text).toBe("Unable to remove user from the default channel town-square.")
  })

  it("/header, /purpose and /rename edit the channel; empty text and DMs are explained", async () => {
    const room = await team.owner.client.createChannel({ team_id: team.team.id, name: unique("props"), display_name: "Props", type: "O" } as Channel)
    await team.owner.client.addToChannel(team.member.user.id, room.id)
    await run(team.member, "/header **Deploys** at noon", room.id)
    await run(team.member, "/purpose Where deploys happen", room.id)
    await run(team.member, "/rename Deploy Room", room.id)
    expect(await team.member.client.getChannel(room.id)).toMatchObject({ header: "**Deploys** at noon", purpose: "Where deploys happen", display_name: "Deploy Room" })
    expect(file.log.named("channel_updated").some((e) => e.broadcast.channel_id === room.id)).toBe(true)
    expect((await run(team.member, "/header", room.id)).text).toBe("Text must be provided with the /header command.")
    expect((await run(team.member, "/purpose", room.id)).text).toBe("A message must be provided with the /purpose command.")
    expect((await run(team.member, `/rename ${"x".repeat(65)}`, room.id)).text).toBe("Channel name must be 64 or fewer characters.")
    const dm = await team.member.client.createDirectChannel([team.member.user.id, carol.user.id])
    expect((await run(team.member, "/purpose why", dm.id)).text).toBe("Unable to set purpose for direct message channels. Use /header to set the header instead.")
    expect((await run(team.member, "/rename x", dm.id)).text).toBe("Unable to rename direct message channels.")
  })

  it("/mute toggles the channel's notifications for the user", async () => {
    expect((await run(team.member, "/mute")).text).toBe("You will not receive notifications for Ops until channel mute is turned off.")
    expect((await team.member.client.getMyChannelMember(ops.id)).notify_props.mark_unread).toBe("mention")
    expect((await run(team.member, `/mute ~${ops.name}`)).text).toBe("Ops is no longer muted.")
    expect((await team.member.client.getMyChannelMember(ops.id)).notify_props.mark_unread).toBe("all")
    expect((await run(team.member, "/mute ~nowhere")).text).toContain("Could not find the channel nowhere.")
  })
})

describe("execution errors", () => {
  it("an unknown command is 404 with Mattermost's message; a malformed one 400; a channel one is not in 403", async () => {
    const unknown = await failureOf(run(team.member, "/frobnicate now"))
    expect(unknown).toEqual({ status: 404, id: "api.command.execute_command.not_found.app_error" })
    const raw = await fetch(`${file.server.url}/api/v4/commands/execute`, {
      method: "POST",
      headers: { authorization: `Bearer ${team.member.client.getToken()}`, "content-type": "application/json" },
      body: JSON.stringify({ command: "/Frobnicate", channel_id: ops.id })
    })
    expect(raw.status).toBe(404)
    expect(raw.headers.get("content-type")).toBe("application/json")
    expect((await raw.json()).message).toBe("Command with a trigger of 'frobnicate' not found. To send a message beginning with \"/\", try adding an empty space at the beginning of the message.")
    for (const [command, channel] of [["/", ops.id], ["away", ops.id], ["/away", "not-an-id"]]) {
      expect(await failureOf(team.member.client.executeCommand(command, { channel_id: channel }))).toEqual({ status: 400, id: "api.command.execute_command.start.app_error" })
    }
    const secret = await team.owner.client.createChannel({ team_id: team.team.id, name: unique("hidden"), display_name: "Hidden", type: "P" } as Channel)
    expect((await failureOf(run(team.member, "/away", secret.id))).status).toBe(403)
    expect((await failureOf(run(dave, "/away"))).status).toBe(403)
  })

  it("the trigger is case-insensitive and the text keeps its spacing", async () => {
    await run(team.member, "/ME  spaced  out")
    expect((await lastPost(ops.id)).message).toBe("* spaced  out*")
  })
})
