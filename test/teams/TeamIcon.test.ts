import type { Team } from "@mattermost/types/teams"
import sharp from "sharp"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { failureOf, newUser, unique } from "../support/Clients.ts"
import { teamOfTwo } from "../support/Teams.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"
import { type EventLog, recordEvents } from "./EventLog.ts"

/** Team icons through Client4: upload, fetch, remove, who may do which, and bad uploads. */
let server: TestServer
let log: EventLog
let team: Awaited<ReturnType<typeof teamOfTwo>>
let admin: Awaited<ReturnType<typeof newUser>>

const jpeg = async (width: number, height: number) =>
  new Blob([new Uint8Array(await sharp({ create: { width, height, channels: 3, background: "#2080ff" } }).jpeg().toBuffer())], { type: "image/jpeg" })

const fetchIcon = (url: string, token: string) => fetch(url, { headers: { authorization: `Bearer ${token}` } })

const iconOf = async (teamId: string) => (await team.owner.client.getTeam(teamId)).last_team_icon_update ?? 0

describe("team icon", () => {
  beforeAll(async () => {
    server = await startServer()
    admin = await newUser(server.url, "iconadmin") // the first account is the system admin; the team's owner is not
    team = await teamOfTwo(server.url, ["iconowner", "iconmember"], { type: "I" })
    log = await recordEvents(server)
  })
  afterAll(async () => {
    await log?.stop()
    await server?.close()
  })

  it("a team admin uploads an icon: stored as a square PNG, last_team_icon_update set, update_team sent", async () => {
    const { owner, member } = team
    const url = owner.client.getTeamIconUrl(team.team.id, 0)
    const none = await fetchIcon(url, owner.client.getToken())
    expect(none.status).toBe(404)
    expect((await none.json()).id).toBe("api.team.get_team_icon.read_file.app_error")

    log.clear()
    const before = Date.now()
    expect(await owner.client.setTeamIcon(team.team.id, await jpeg(300, 200) as never)).toEqual({ status: "OK" })
    const updatedAt = await iconOf(team.team.id)
    expect(updatedAt).toBeGreaterThanOrEqual(before)
    await expect.poll(() => log.named("update_team").length).toBeGreaterThan(0)
    const event = log.named("update_team")[0]
    expect(event.broadcast.team_id).toBe(team.team.id)
    expect(JSON.parse(event.data.team as string).last_team_icon_update).toBe(updatedAt)

    // Any member sees it.
    const served = await fetchIcon(member.client.getTeamIconUrl(team.team.id, updatedAt), member.client.getToken())
    expect(served.status).toBe(200)
    expect(served.headers.get("content-type")).toBe("image/png")
    const meta = await sharp(Buffer.from(await served.arrayBuffer())).metadata()
    expect(meta.format).toBe("png")
    expect(meta.width).toBe(meta.height)
  })

  it("only team admins change it; outsiders of a private team cannot see it", async () => {
    const { owner, member } = team
    expect(await failureOf(member.client.setTeamIcon(team.team.id, await jpeg(64, 64) as never))).toMatchObject({ status: 403 })
    expect(await failureOf(member.client.removeTeamIcon(team.team.id))).toMatchObject({ status: 403 })
    const stranger = await newUser(server.url, "iconstranger")
    expect((await fetchIcon(owner.client.getTeamIconUrl(team.team.id, 1), stranger.client.getToken())).status).toBe(403)
    expect(await failureOf(stranger.client.setTeamIcon(team.team.id, await jpeg(64, 64) as never))).toMatchObject({ status: 403 })
    expect((await fetchIcon(owner.client.getTeamIconUrl(team.team.id, 1), "")).status).toBe(401)
    // An open team's icon is visible to anyone signed in, as the team is.
    const open = await owner.client.createTeam({ name: unique("openicon"), display_name: "Open", type: "O", allow_open_invite: true } as Team)
    await owner.client.setTeamIcon(open.id, await jpeg(40, 40) as never)
    expect((await fetchIcon(owner.client.getTeamIconUrl(open.id, 1), stranger.client.getToken())).status).toBe(200)
    expect(await failureOf(stranger.client.removeTeamIcon(open.id))).toMatchObject({ status: 403 })
  })

  it("refuses bad uploads with Mattermost's error body and keeps the icon", async () => {
    const { owner } = team
    const kept = await iconOf(team.team.id)
    const cases: Array<[Blob, number, string]> = [
      [new Blob(["not an image at all"], { type: "image/png" }), 400, "api.team.set_team_icon.decode.app_error"],
      [new Blob([new Uint8Array(10 * 1024 * 1024 + 10)], { type: "image/png" }), 413, "api.team.set_team_icon.too_large.app_error"]
    ]
    for (const [blob, status, id] of cases) {
      expect(await failureOf(owner.client.setTeamIcon(team.team.id, blob as never))).toMatchObject({ status, id })
    }
    const form = new FormData()
    form.append("other", new Blob(["x"]), "x.png")
    const noImage = await fetch(`${server.url}/api/v4/teams/${team.team.id}/image`, {
      method: "POST",
      headers: { authorization: `Bearer ${owner.client.getToken()}` },
      body: form
    })
    expect(noImage.status).toBe(400)
    expect((await noImage.json()).id).toBe("api.team.set_team_icon.no_file.app_error")
    const notMultipart = await fetch(`${server.url}/api/v4/teams/${team.team.id}/image`, {
      method: "POST",
      headers: { authorization: `Bearer ${owner.client.getToken()}`, "content-type": "application/json" },
      body: "{}"
    })
    expect(notMultipart.status).toBe(400)
    expect(notMultipart.headers.get("content-type")).toBe("application/json")
    expect(await failureOf(owner.client.setTeamIcon("nosuchteamnosuchteamnosuch", await jpeg(10, 10) as never))).toMatchObject({ status: 404 })
    expect(await failureOf(owner.client.setTeamIcon("bad-id", await jpeg(10, 10) as never))).toMatchObject({ status: 400 })
    expect(await iconOf(team.team.id)).toBe(kept)
  })

  it("a team admin removes it: last_team_icon_update back to 0, update_team sent, then 404", async () => {
    const { owner } = team
    log.clear()
    expect(await owner.client.removeTeamIcon(team.team.id)).toEqual({ status: "OK" })
    expect(await iconOf(team.team.id)).toBe(0)
    await expect.poll(() => log.named("update_team").length).toBeGreaterThan(0)
    expect(JSON.parse(log.named("update_team")[0].data.team as string).last_team_icon_update).toBe(0)
    expect((await fetchIcon(owner.client.getTeamIconUrl(team.team.id, 0), owner.client.getToken())).status).toBe(404)
    // Removing again is harmless.
    expect(await owner.client.removeTeamIcon(team.team.id)).toEqual({ status: "OK" })
    // A system admin may too, without being a member.
    expect(await admin.client.setTeamIcon(team.team.id, await jpeg(20, 20) as never)).toEqual({ status: "OK" })
    expect(await iconOf(team.team.id)).toBeGreaterThan(0)
    expect(await admin.client.removeTeamIcon(team.team.id)).toEqual({ status: "OK" })
    expect(await iconOf(team.team.id)).toBe(0)
  })
})
