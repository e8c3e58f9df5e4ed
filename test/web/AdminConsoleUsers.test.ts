import * as OTPAuth from "otpauth"
import type { Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client4 } from "../support/Clients.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"
import { signedInPages } from "./support/WebTeam.ts"
import { haveChromium, withScreenshots } from "./support/Chromium.ts"
import { checkConsolePage, expectRefused } from "./support/Console.ts"
import { createPeople, PASSWORD } from "./support/People.ts"

/**
 * Issue 29, User management > Users, as a system admin (ann): the list searched, filtered (role, deactivated, bots),
 * sorted and paged; Create user; a user's page with their teams, sessions and recent activity, where ann sets a
 * password, resets the second factor, revokes sessions, changes the system and team admin roles, deactivates and
 * reactivates; every destructive action after a confirmation, every change checked through the API. bob, a member,
 * sees none of it and his API calls are refused. 22 more users (user01..user22) make a second page.
 */
let server: TestServer
let closeBrowser: () => Promise<void>
let ann: Page
let bob: Page
let apis: Record<string, ReturnType<typeof client4>>
let ids: Record<string, string>
let teamId = ""
const headers = { "X-Requested-With": "XMLHttpRequest" }

beforeAll(async () => {
  server = await startServer()
  ;({ apis, ids } = await createPeople(server.url, ["ann", "bob", "dora"]))
  for (let i = 1; i <= 22; i++) {
    const name = `user${String(i).padStart(2, "0")}`
    await apis.ann.createUser({ username: name, email: `${name}@example.com`, password: PASSWORD } as never, "", "")
  }
  teamId = (await apis.ann.createTeam({ name: "crew", display_name: "Crew", type: "O" } as never)).id
  await apis.ann.addToTeam(teamId, ids.bob)
  const channel = await apis.ann.getChannelByName(teamId, "town-square")
  await apis.bob.createPost({ channel_id: channel.id, message: "bob was here" } as never)
  await apis.ann.patchConfig({ ServiceSettings: { EnableBotAccountCreation: true } } as never)
  await apis.ann.createBot({ username: "helperbot", display_name: "Helper" } as never)
  // dora has a second factor for ann to reset.
  const { secret } = await apis.dora.generateMfaSecret(ids.dora)
  await apis.dora.updateUserMfa(ids.dora, true, new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), digits: 6, period: 30, algorithm: "SHA1" }).generate())
  if (!haveChromium) return
  ;({ close: closeBrowser, pages: [ann, bob] } = await signedInPages(server.url, ["ann", "bob"]))
}, 90_000)

afterAll(async () => {
  await closeBrowser?.()
  await server?.close()
})

const step = (name: string, body: () => Promise<void>) => withScreenshots(name, () => [ann, bob].filter(Boolean), body)
const status = (text: string | RegExp) => ann.getByRole("status").getByText(text).waitFor()
const confirmIn = async (title: string, action: string) => {
  const dialog = ann.getByRole("alertdialog", { name: title })
  await dialog.waitFor()
  return dialog.getByRole("button", { name: action, exact: true })
}
const table = () => ann.getByRole("region", { name: "Users" }).getByRole("table")
const firstUser = () => table().getByRole("row").nth(1).getByRole("link").first().textContent()

describe.skipIf(!haveChromium)("System Console: users", () => {
  it("shows a member none of it, and refuses their API calls", async () => {
    await step("member", async () => {
      await expectRefused(bob, "/admin_console/user_management/users")
      await expectRefused(bob, `/admin_console/user_management/users/${ids.ann}`)
      const refused: Array<[string, string, unknown?]> = [
        ["GET", "/api/v4/reports/users"],
        ["PUT", `/api/v4/users/${ids.dora}/roles`, { roles: "system_user system_admin" }],
        ["PUT", `/api/v4/users/${ids.dora}/active`, { active: false }],
        ["PUT", `/api/v4/users/${ids.dora}/password`, { new_password: "another-horse-battery" }],
        ["POST", `/api/v4/users/${ids.dora}/sessions/revoke/all`],
        ["PUT", `/api/v4/users/${ids.dora}/mfa`, { activate: false }]
      ]
      for (const [method, path, data] of refused) {
        const response = await bob.request.fetch(path, { method, headers, data })
        expect(response.status(), `${method} ${path}`).toBe(403)
      }
      const dora = await apis.ann.getUser(ids.dora)
      expect(dora.roles).toBe("system_user")
      expect(dora.delete_at).toBe(0)
      expect(dora.mfa_active).toBe(true)
    })
  }, 90_000)

  it("lists users: search, role and state filters, bots, sorting and paging", async () => {
    await step("list", async () => {
      await ann.goto("/admin_console/users")
      await ann.waitForURL(/\/admin_console\/user_management\/users$/)
      await ann.getByRole("heading", { name: "Users", exact: true }).waitFor()
      // 25 people (no bot): 20 on the first page, sorted by username.
      await expect.poll(() => table().getByRole("row").count()).toBe(21)
      expect(await firstUser()).toBe("ann")
      await checkConsolePage(ann, "users")
      await ann.getByRole("button", { name: "Next page" }).click()
      await expect.poll(() => table().getByRole("row").count()).toBe(6)
      expect(await firstUser()).toBe("user18")
      expect(await ann.getByRole("button", { name: "Next page" }).isDisabled()).toBe(true)
      await ann.getByRole("button", { name: "Previous page" }).click()
      await expect.poll(() => firstUser()).toBe("ann")

      await ann.getByRole("button", { name: "Username", exact: true }).click()
      await expect.poll(() => firstUser()).toBe("user22")
      expect(await table().getByRole("columnheader", { name: /Username/ }).getAttribute("aria-sort")).toBe("descending")
      await ann.getByRole("button", { name: "Email", exact: true }).click()
      await expect.poll(() => firstUser()).toBe("ann")

      await ann.getByLabel("Search users").fill("user1")
      await expect.poll(() => table().getByRole("row").count()).toBe(11)
      await ann.getByLabel("Search users").fill("")

      await ann.getByLabel("Show").selectOption("admins")
      await expect.poll(() => table().getByRole("row").count()).toBe(2)
      expect(await firstUser()).toBe("ann")

      await ann.getByLabel("Show").selectOption("bots")
      await table().getByRole("link", { name: "helperbot" }).waitFor()
      await expect.poll(() => table().getByRole("row").count()).toBe(2)

      // Deactivation from the list, after a confirmation; the Deactivated filter then shows the user.
      await ann.getByLabel("Show").selectOption("all")
      await ann.getByLabel("Search users").fill("user05")
      await expect.poll(() => table().getByRole("row").count()).toBe(2)
      await ann.getByRole("button", { name: "Deactivate user05" }).click()
      await checkConsolePage(ann, "users-confirm")
      await (await confirmIn("Deactivate user05", "Deactivate")).click()
      await status("user05 deactivated")
      const user05 = await apis.ann.getUserByUsername("user05")
      expect(user05.delete_at).toBeGreaterThan(0)
      await ann.getByLabel("Search users").fill("")
      await ann.getByLabel("Show").selectOption("inactive")
      await expect.poll(() => table().getByRole("row").count()).toBe(2)
      await ann.getByRole("button", { name: "Reactivate user05" }).click()
      await status("user05 reactivated")
      expect((await apis.ann.getUser(user05.id)).delete_at).toBe(0)
      await ann.getByLabel("Show").selectOption("all")
    })
  }, 90_000)

  it("creates a user, refusing a taken email with the server's reason", async () => {
    await step("create", async () => {
      await ann.getByRole("button", { name: "Create user" }).click()
      const dialog = ann.getByRole("dialog", { name: "Create user" })
      await dialog.getByLabel("Username").fill("carol")
      await dialog.getByLabel("Email").fill("bob@example.com")
      await dialog.getByLabel("First name").fill("Carol")
      await dialog.getByLabel("Password").fill("violet-harbor-engine")
      await checkConsolePage(ann, "create-user")
      await dialog.getByRole("button", { name: "Create user" }).click()
      await dialog.getByRole("alert").waitFor()
      await dialog.getByLabel("Email").fill("carol@example.com")
      await dialog.getByRole("button", { name: "Create user" }).click()
      await ann.getByRole("heading", { name: "carol", exact: true }).waitFor()
      const carol = await apis.ann.getUserByUsername("carol")
      expect(carol.email).toBe("carol@example.com")
      expect(carol.first_name).toBe("Carol")
      await client4(server.url).login("carol", "violet-harbor-engine")
    })
  }, 90_000)

  it("manages a user from their page: password, roles, team role, sessions, activity, deactivation", async () => {
    await step("detail", async () => {
      await ann.goto(`/admin_console/user_management/users/${ids.bob}`)
      await ann.getByRole("heading", { name: "bob", exact: true }).waitFor()
      await ann.getByRole("region", { name: "Teams of the user" }).getByRole("link", { name: "Crew" }).waitFor()
      await expect.poll(() => ann.getByRole("region", { name: "Sessions of the user" }).getByRole("button", { name: /^Revoke the session/ }).count())
        .toBeGreaterThanOrEqual(2)
      // bob's post of the set-up is his recent activity.
      await expect.poll(() => ann.locator("dt:has-text('Posts in the last 30 days') + dd").textContent()).toBe("1")
      await checkConsolePage(ann, "user-detail")

      await ann.getByRole("button", { name: "Set password" }).click()
      const dialog = ann.getByRole("dialog", { name: "Set the password of bob" })
      await dialog.getByLabel("New password", { exact: true }).fill("amber-lantern-river")
      await dialog.getByLabel("Repeat the new password").fill("amber-lantern-rivers")
      await dialog.getByRole("button", { name: "Set password" }).click()
      await dialog.getByRole("alert").getByText("The two passwords differ.").waitFor()
      await dialog.getByLabel("Repeat the new password").fill("amber-lantern-river")
      await dialog.getByRole("button", { name: "Set password" }).click()
      await status("Password of bob set")
      await client4(server.url).login("bob", "amber-lantern-river")

      await ann.getByRole("button", { name: "Make system admin" }).click()
      await status("bob is now a system admin")
      expect((await apis.ann.getUser(ids.bob)).roles).toContain("system_admin")
      await ann.getByRole("button", { name: "Remove system admin role" }).click()
      await (await confirmIn("Remove the system admin role of bob", "Remove system admin")).click()
      await status("bob is no longer a system admin")
      expect((await apis.ann.getUser(ids.bob)).roles).not.toContain("system_admin")

      await ann.getByRole("button", { name: "Make team admin in Crew" }).click()
      await status("bob is now a team admin of Crew")
      expect((await apis.ann.getTeamMember(teamId, ids.bob)).scheme_admin).toBe(true)
      await ann.getByRole("button", { name: "Make member in Crew" }).click()
      await status("bob is now a member of Crew")
      expect((await apis.ann.getTeamMember(teamId, ids.bob)).scheme_admin).toBe(false)

      // One session, then all of them.
      const before = (await apis.ann.getSessions(ids.bob)).length
      await ann.getByRole("region", { name: "Sessions of the user" }).getByRole("button", { name: /^Revoke the session/ }).first().click()
      await (await confirmIn("Revoke this session", "Revoke session")).click()
      await status("Session revoked")
      await expect.poll(async () => (await apis.ann.getSessions(ids.bob)).length).toBe(before - 1)
      await ann.getByRole("button", { name: "Revoke all sessions" }).click()
      await (await confirmIn("Revoke all sessions of bob", "Revoke sessions")).click()
      await status("Sessions of bob revoked")
      expect(await apis.ann.getSessions(ids.bob)).toEqual([])
      expect((await bob.request.get("/api/v4/users/me", { headers })).status()).toBe(401)

      await ann.getByRole("button", { name: "Deactivate" }).click()
      await (await confirmIn("Deactivate bob", "Deactivate")).click()
      await status("bob deactivated")
      expect((await apis.ann.getUser(ids.bob)).delete_at).toBeGreaterThan(0)
      await ann.getByRole("button", { name: "Reactivate" }).click()
      await status("bob reactivated")
      expect((await apis.ann.getUser(ids.bob)).delete_at).toBe(0)
    })
  }, 90_000)

  it("resets a user's second factor after a confirmation", async () => {
    await step("mfa", async () => {
      await ann.goto(`/admin_console/user_management/users/${ids.dora}`)
      await ann.getByText("Email and password, second factor on").waitFor()
      await ann.getByRole("button", { name: "Reset second factor" }).click()
      const confirm = await confirmIn("Reset the second factor of dora", "Reset second factor")
      await checkConsolePage(ann, "user-reset-mfa")
      await confirm.click()
      await status("Second factor of dora reset")
      expect((await apis.ann.getUser(ids.dora)).mfa_active).toBe(false)
      await client4(server.url).login("dora", PASSWORD)
    })
  }, 90_000)
})
