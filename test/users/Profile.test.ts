import type { Team } from "@mattermost/types/teams"
import type { UserProfile } from "@mattermost/types/users"
import sharp from "sharp"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { recordEvents } from "../compat/Events.ts"
import { raw } from "../compat/Raw.ts"
import { expectShape, Wire } from "../compat/Shapes.ts"
import { client4, newUser } from "../support/Clients.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"

/** Patch, activation, password, sessions, custom status and profile pictures. */
type Member = Awaited<ReturnType<typeof newUser>>

let server: TestServer
let recorder: Awaited<ReturnType<typeof recordEvents>>
let admin: Member

beforeAll(async () => {
  server = await startServer()
  recorder = await recordEvents(server)
  admin = await newUser(server.url, "admin")
})
afterAll(async () => {
  await recorder?.stop()
  await server?.close()
})

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47]

describe("patch", () => {
  it("patches the caller's profile, timezone and notify props and publishes a sanitized user_updated", async () => {
    const { client, user } = await newUser(server.url, "patcher")
    const patched = await client.patchMe({
      nickname: "Nick",
      first_name: "Ada",
      last_name: "Lovelace",
      position: "Engineer",
      locale: "fr",
      timezone: { useAutomaticTimezone: "false", automaticTimezone: "", manualTimezone: "Europe/Paris" },
      notify_props: { push: "all", desktop: "all" } as never
    })
    expectShape(patched, Wire.User)
    expect(patched).toMatchObject({ nickname: "Nick", first_name: "Ada", last_name: "Lovelace", position: "Engineer", locale: "fr" })
    expect(patched.timezone).toEqual({ useAutomaticTimezone: "false", automaticTimezone: "", manualTimezone: "Europe/Paris" })
    expect(patched.notify_props).toMatchObject({ push: "all", desktop: "all", email: "true" })
    expect(patched.update_at).toBeGreaterThan(user.update_at)

    const own = await recorder.waitFor((e) => e.event === "user_updated" && e.broadcast.user_id === user.id)
    expect(own.broadcast.broadcast_to_all).toBe(false)
    const self = own.data.user as UserProfile
    expect(typeof self).toBe("object")
    expect(self.nickname).toBe("Nick")
    expect(self.email).toBe(`${user.username}@example.com`)
  })

  it("sends others the sanitized user only in the scopes where they can see it: the user's teams and DMs", async () => {
    const { client, user } = await newUser(server.url, "scoped")
    const mate = await newUser(server.url, "mate")
    const team = await client.createTeam({ name: `scope${Date.now()}`, display_name: "Scope", type: "O" } as Team)
    const dm = await client.createDirectChannel([user.id, mate.user.id])
    recorder.clear()
    await client.patchMe({ nickname: "Scoped" })
    const scoped = await recorder.waitFor((e) => e.event === "user_updated" && e.broadcast.team_id === team.id)
    const viaDm = await recorder.waitFor((e) => e.event === "user_updated" && e.broadcast.channel_id === dm.id)
    for (const event of [scoped, viaDm]) {
      expect(event.broadcast.omit_users).toEqual({ [user.id]: true })
      expect(event.broadcast.broadcast_to_all).toBe(false)
      const sent = event.data.user as UserProfile
      expect(sent.id).toBe(user.id)
      expect(sent.nickname).toBe("Scoped")
      expect(sent.email).toBe("")
      expect(sent.notify_props).toEqual({})
    }
    const everyone = recorder.events.filter((e) => e.event === "user_updated" && e.broadcast.broadcast_to_all)
    expect(everyone).toEqual([])
  })

  it("validates usernames and emails and refuses duplicates with 400", async () => {
    const first = await newUser(server.url, "taken")
    const { client } = await newUser(server.url, "renamer")
    await expect(client.patchMe({ username: first.username })).rejects.toMatchObject({ status_code: 400, server_error_id: "app.user.save.username_exists.app_error" })
    await expect(client.patchMe({ username: "Bad Name" })).rejects.toMatchObject({ status_code: 400, server_error_id: "model.user.is_valid.username.app_error" })
    await expect(client.patchMe({ username: "all" })).rejects.toMatchObject({ status_code: 400 })
    await expect(client.patchMe({ email: "not-an-email" })).rejects.toMatchObject({ status_code: 400 })
    await expect(client.patchMe({ email: `${first.username}@example.com`, password: "correct-horse-battery" } as never)).rejects.toMatchObject({ status_code: 400, server_error_id: "app.user.save.email_exists.app_error" })
    await expect(client.patchMe({ nickname: "n".repeat(65) })).rejects.toMatchObject({ status_code: 400 })
    await expect(client.patchMe({ locale: "not a locale" })).rejects.toMatchObject({ status_code: 400 })
    const renamed = await client.patchMe({ username: `${first.username}x`.slice(0, 22) })
    expect(renamed.username).toBe(`${first.username}x`.slice(0, 22))
  })

  it("needs the current password to change one's own email", async () => {
    const { client, username } = await newUser(server.url, "mailer")
    await expect(client.patchMe({ email: `${username}.new@example.com` })).rejects.toMatchObject({ status_code: 400, server_error_id: "api.user.check_user_password.invalid.app_error" })
    const changed = await client.patchMe({ email: `${username}.new@example.com`, password: "correct-horse-battery" } as never)
    expect(changed.email).toBe(`${username}.new@example.com`)
  })

  it("lets only the user or an admin patch a profile", async () => {
    const target = await newUser(server.url, "target")
    const other = await newUser(server.url, "intruder")
    await expect(other.client.patchUser({ id: target.user.id, nickname: "pwned" })).rejects.toMatchObject({ status_code: 403 })
    const byAdmin = await admin.client.patchUser({ id: target.user.id, nickname: "by admin" })
    expect(byAdmin.nickname).toBe("by admin")
    expect((await target.client.getMe()).nickname).toBe("by admin")
  })
})

describe("activation and password", () => {
  it("lets admins deactivate (ending the user's sessions) and reactivate users", async () => {
    const target = await newUser(server.url, "deact")
    await expect(target.client.updateUserActive(target.user.id, false)).rejects.toMatchObject({ status_code: 403 })
    expect(await admin.client.updateUserActive(target.user.id, false)).toEqual({ status: "OK" })
    await expect(target.client.getMe()).rejects.toMatchObject({ status_code: 401 })
    await expect(client4(server.url).login(target.username, target.password)).rejects.toMatchObject({ status_code: 401, server_error_id: "api.user.login.inactive.app_error" })
    expect((await admin.client.getUser(target.user.id)).delete_at).toBeGreaterThan(0)
    await admin.client.updateUserActive(target.user.id, true)
    const back = await client4(server.url).login(target.username, target.password)
    expect(back.delete_at).toBe(0)
  })

  it("changes the password with the current one, ending the account's other sessions", async () => {
    const { client, username, password, user } = await newUser(server.url, "passwd")
    const second = client4(server.url)
    await second.login(username, password)
    await expect(client.updateUserPassword(user.id, "wrong-password", "a-new-password")).rejects.toMatchObject({ status_code: 400, server_error_id: "api.user.update_password.incorrect.app_error" })
    await expect(client.updateUserPassword(user.id, password, "short")).rejects.toMatchObject({ status_code: 400 })
    expect(await client.updateUserPassword(user.id, password, "a-new-password")).toEqual({ status: "OK" })
    expect((await client.getMe()).id).toBe(user.id)
    await expect(second.getMe()).rejects.toMatchObject({ status_code: 401 })
    await expect(client4(server.url).login(username, password)).rejects.toMatchObject({ status_code: 401 })
    expect((await client4(server.url).login(username, "a-new-password")).id).toBe(user.id)
    const other = await newUser(server.url, "notmine")
    await expect(other.client.updateUserPassword(user.id, "", "another-password")).rejects.toMatchObject({ status_code: 403 })
    expect(await admin.client.updateUserPassword(user.id, "", "admin-chosen-pw")).toEqual({ status: "OK" })
  })
})

describe("sessions", () => {
  it("lists one's own sessions without tokens and revokes one or all", async () => {
    const { client, username, password, user } = await newUser(server.url, "sess")
    const phone = client4(server.url)
    await phone.login(username, password)
    const sessions = await client.getSessions(user.id)
    expect(sessions).toHaveLength(2)
    for (const s of sessions) {
      expectShape(s, Wire.Session)
      expect(s.token).toBe("")
      expect(s.props.os).toBeTypeOf("string")
    }
    const other = await newUser(server.url, "spy")
    await expect(other.client.getSessions(user.id)).rejects.toMatchObject({ status_code: 403 })
    expect(await admin.client.getSessions(user.id)).toHaveLength(2)

    const [some] = await client.getSessions("me")
    await expect(other.client.revokeSession(user.id, some.id)).rejects.toMatchObject({ status_code: 403 })
    await expect(other.client.revokeAllSessionsForUser(user.id)).rejects.toMatchObject({ status_code: 403 })
    await expect(client.revokeSession(user.id, "abcdefghijklmnopqrstuvwxyz")).rejects.toMatchObject({ status_code: 404 })
    await expect(client.revokeSession(user.id, "bad")).rejects.toMatchObject({ status_code: 400 })
    expect((await phone.getMe()).id).toBe(user.id)
    await client.revokeAllSessionsForUser(user.id)
    await expect(phone.getMe()).rejects.toMatchObject({ status_code: 401 })
    await expect(client.getMe()).rejects.toMatchObject({ status_code: 401 })
  })

  it("revokes a single session by id", async () => {
    const { client, username, password, user } = await newUser(server.url, "single")
    const phone = client4(server.url)
    await phone.login(username, password)
    const own = await client.getSessions(user.id)
    const phoneSessions = await phone.getSessions(user.id)
    expect(own.map((s) => s.id).sort()).toEqual(phoneSessions.map((s) => s.id).sort())
    const before = new Set(own.map((s) => s.id))
    const third = client4(server.url)
    await third.login(username, password)
    const thirdId = (await third.getSessions(user.id)).map((s) => s.id).find((id) => !before.has(id))!
    expect(await client.revokeSession(user.id, thirdId)).toEqual({ status: "OK" })
    await expect(third.getMe()).rejects.toMatchObject({ status_code: 401 })
    expect((await phone.getMe()).id).toBe(user.id)
  })
})

describe("custom status", () => {
  it("sets, lists as recent, clears and forgets a custom status, publishing user_updated", async () => {
    const { client, user } = await newUser(server.url, "custom")
    const status = { emoji: "palm_tree", text: "On holiday", duration: "today", expires_at: "2030-01-01T00:00:00Z" }
    expect(await client.updateCustomStatus(status as never)).toEqual({ status: "OK" })
    const me = await client.getMe()
    expect(JSON.parse(me.props.customStatus)).toEqual(status)
    expect(JSON.parse(me.props.recentCustomStatuses)).toEqual([status])
    const event = await recorder.waitFor((e) => e.event === "user_updated" && e.broadcast.user_id === user.id && "customStatus" in (e.data.user as UserProfile).props)
    expect(JSON.parse((event.data.user as UserProfile).props.customStatus).text).toBe("On holiday")

    await client.updateCustomStatus({ emoji: "", text: "Busy", duration: "" } as never)
    const busy = await client.getMe()
    expect(JSON.parse(busy.props.customStatus)).toMatchObject({ emoji: "speech_balloon", text: "Busy", duration: "" })
    expect(JSON.parse(busy.props.recentCustomStatuses)).toHaveLength(2)

    await client.unsetCustomStatus()
    const cleared = await client.getMe()
    expect(cleared.props.customStatus).toBeUndefined()
    await client.removeRecentCustomStatus(status as never)
    const recent = JSON.parse((await client.getMe()).props.recentCustomStatuses) as Array<{ text: string }>
    expect(recent.map((r) => r.text)).toEqual(["Busy"])
  })

  it("refuses bad durations and other users' statuses", async () => {
    const { client, user } = await newUser(server.url, "badcustom")
    await expect(client.updateCustomStatus({ emoji: "x", text: "y", duration: "forever" } as never)).rejects.toMatchObject({ status_code: 400 })
    const other = await newUser(server.url, "othercustom")
    const response = await raw(server.url, `/api/v4/users/${user.id}/status/custom`, { method: "PUT", token: other.client.getToken(), body: { emoji: "x", text: "y" } })
    expect(response.status).toBe(403)
  })
})

describe("profile pictures", () => {
  it("serves a deterministic generated PNG by default", async () => {
    const { client, user } = await newUser(server.url, "avatar")
    const first = await raw(server.url, `/api/v4/users/${user.id}/image`, { token: client.getToken() })
    expect(first.status).toBe(200)
    expect(first.type).toBe("image/png")
    expect([...first.body.slice(0, 4)]).toEqual(PNG_SIGNATURE)
    const again = await raw(server.url, `/api/v4/users/${user.id}/image/default`, { token: client.getToken() })
    expect(Buffer.from(again.body).equals(Buffer.from(first.body))).toBe(true)
    const meta = await sharp(first.body).metadata()
    expect([meta.width, meta.height]).toEqual([128, 128])
    const otherAvatar = await raw(server.url, `/api/v4/users/${admin.user.id}/image`, { token: admin.client.getToken() })
    expect(Buffer.from(otherAvatar.body).equals(Buffer.from(first.body))).toBe(false)
    expect((await raw(server.url, `/api/v4/users/${user.id}/image`)).status).toBe(401)
  })

  it("accepts an uploaded image, serves it re-encoded, and resets to the default", async () => {
    const { client, user } = await newUser(server.url, "uploader")
    const team = await client.createTeam({ name: `pics${Date.now()}`, display_name: "Pics", type: "O" } as Team)
    const upload = await sharp({ create: { width: 300, height: 200, channels: 3, background: "#ff0000" } }).jpeg().toBuffer()
    expect(await client.uploadProfileImage(user.id, new Blob([new Uint8Array(upload)], { type: "image/jpeg" }) as never)).toEqual({ status: "OK" })
    const me = await client.getMe()
    expect(me.last_picture_update).toBeGreaterThan(0)
    const served = await raw(server.url, `/api/v4/users/${user.id}/image?_=${me.last_picture_update}`, { token: client.getToken() })
    expect(served.type).toBe("image/png")
    const meta = await sharp(served.body).metadata()
    expect([meta.width, meta.height]).toEqual([256, 256])
    const { data } = await sharp(served.body).raw().toBuffer({ resolveWithObject: true })
    expect(data[0]).toBeGreaterThan(240)
    expect(data[1] + data[2]).toBeLessThan(20)

    const stranger = await newUser(server.url, "stranger")
    expect((await raw(server.url, `/api/v4/users/${user.id}/image`, { token: stranger.client.getToken() })).status).toBe(403)
    await client.addToTeam(team.id, stranger.user.id)
    expect((await raw(server.url, `/api/v4/users/${user.id}/image`, { token: stranger.client.getToken() })).status).toBe(200)
    await expect(stranger.client.uploadProfileImage(user.id, new Blob([new Uint8Array(upload)]) as never)).rejects.toMatchObject({ status_code: 403 })

    await client.setDefaultProfileImage(user.id)
    const reset = await client.getMe()
    expect(reset.last_picture_update).toBeLessThan(0)
    const fallback = await raw(server.url, `/api/v4/users/${user.id}/image`, { token: client.getToken() })
    const generated = await raw(server.url, `/api/v4/users/${user.id}/image/default`, { token: client.getToken() })
    expect(Buffer.from(fallback.body).equals(Buffer.from(generated.body))).toBe(true)
  })

  it("refuses non-images with 400 and oversized uploads with 413, keeping the picture", async () => {
    const { client, user } = await newUser(server.url, "badpic")
    await expect(client.uploadProfileImage(user.id, new Blob(["definitely not an image"], { type: "image/png" }) as never)).rejects.toMatchObject({ status_code: 400 })
    const big = new Uint8Array(11 * 1024 * 1024)
    await expect(client.uploadProfileImage(user.id, new Blob([big], { type: "image/png" }) as never)).rejects.toMatchObject({ status_code: 413 })
    const noPart = await raw(server.url, `/api/v4/users/${user.id}/image`, { method: "POST", token: client.getToken(), body: new FormData() })
    expect(noPart.status).toBe(400)
    expect((await client.getMe()).last_picture_update).toBe(0)
  })
})
