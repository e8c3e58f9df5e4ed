import type { Role } from "@mattermost/types/roles"
import { readFileSync } from "node:fs"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { raw } from "../compat/Raw.ts"
import { expectShape, Wire } from "../compat/Shapes.ts"
import { client4, failureOf, newUser } from "../support/Clients.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"

/**
 * Roles as Mattermost defines them (issue 26): the built-in set with its default permissions, compared with a fixture
 * taken from Mattermost's source (role.go MakeDefaultRoles, permission.go AllPermissions and the sysconsole lists);
 * the read and patch endpoints through Client4; permission schemes answered as Team Edition answers them.
 */
interface Expected {
  readonly display_name: string
  readonly scheme_managed: boolean
  readonly built_in: boolean
  readonly permissions: ReadonlyArray<string>
}
const fixture = JSON.parse(readFileSync(new URL("./fixtures/mattermost-default-roles.json", import.meta.url), "utf8")) as {
  readonly roles: Record<string, Expected>
}
const NAMES = Object.keys(fixture.roles)

/** The sysconsole permissions behind the console's sections (Users, Teams, Channels, statistics, site, integrations). */
const CONSOLE = [
  "sysconsole_read_about_edition_and_license",
  "sysconsole_read_reporting_site_statistics",
  "sysconsole_read_reporting_team_statistics",
  "sysconsole_read_user_management_users",
  "sysconsole_write_user_management_users",
  "sysconsole_read_user_management_teams",
  "sysconsole_write_user_management_teams",
  "sysconsole_read_user_management_channels",
  "sysconsole_write_user_management_channels",
  "sysconsole_read_user_management_permissions",
  "sysconsole_write_user_management_permissions",
  "sysconsole_read_environment_web_server",
  "sysconsole_read_site_customization",
  "sysconsole_write_site_customization",
  "sysconsole_read_site_users_and_teams",
  "sysconsole_read_site_posts",
  "sysconsole_read_authentication_signup",
  "sysconsole_read_integrations_integration_management",
  "sysconsole_write_integrations_integration_management",
  "sysconsole_read_integrations_bot_accounts",
  "sysconsole_read_plugins"
]

let server: TestServer
let admin: Awaited<ReturnType<typeof newUser>>
let member: Awaited<ReturnType<typeof newUser>>

beforeAll(async () => {
  server = await startServer()
  admin = await newUser(server.url, "radmin")
  expect(admin.user.roles).toContain("system_admin")
  member = await newUser(server.url, "rmember")
})
afterAll(async () => {
  await server?.close()
})

const byName = (roles: ReadonlyArray<Role>) => Object.fromEntries(roles.map((r) => [r.name, r]))

describe("the built-in roles", () => {
  it("are Mattermost's, by name and permission, flags and display names", async () => {
    const roles = await member.client.getRolesByNames(NAMES)
    expect(roles.map((r) => r.name).sort()).toEqual([...NAMES].sort())
    for (const role of roles) {
      expectShape(role, Wire.Role, role.name)
      const expected = fixture.roles[role.name]
      expect([...role.permissions].sort(), role.name).toEqual(expected.permissions)
      expect(role.permissions.length, `${role.name} lists each permission once`).toBe(new Set(role.permissions).size)
      expect({ display_name: role.display_name, scheme_managed: role.scheme_managed, built_in: role.built_in }, role.name)
        .toEqual({ display_name: expected.display_name, scheme_managed: expected.scheme_managed, built_in: expected.built_in })
      expect(role.delete_at).toBe(0)
      expect(role.id).toMatch(/^[a-z0-9]{26}$/)
    }
  })

  it("include the ten system roles the System Console waits for, and system_admin holds the console's permissions", async () => {
    const system = ["system_admin", "system_user", "system_guest", "system_post_all", "system_post_all_public", "system_user_access_token",
      "system_user_manager", "system_manager", "system_read_only_admin", "system_custom_group_admin"]
    const roles = byName(await admin.client.getRolesByNames(system))
    expect(Object.keys(roles).sort()).toEqual([...system].sort())
    const sysconsole = roles.system_admin.permissions.filter((p) => p.startsWith("sysconsole_"))
    expect(sysconsole).toEqual(expect.arrayContaining(CONSOLE))
    expect(sysconsole.filter((p) => p.startsWith("sysconsole_read_"))).toHaveLength(55)
    expect(sysconsole.filter((p) => p.startsWith("sysconsole_write_"))).toHaveLength(55)
    expect(roles.system_admin.permissions).toEqual(expect.arrayContaining(["manage_system", "manage_roles", "create_team", "create_post"]))
    // A plain user holds no console permission.
    expect(roles.system_user.permissions.filter((p) => p.startsWith("sysconsole_"))).toEqual([])
  })

  it("are served by id, by name and all at once (the last to console readers only)", async () => {
    const one = await member.client.getRoleByName("channel_user")
    expectShape(one, Wire.Role, "by name")
    expect(await member.client.getRole(one.id)).toEqual(one)
    // Client4 has no method for GET /roles (the console's permission pages call it through their own action).
    const allRoles = (client: typeof admin.client) => raw(server.url, "/api/v4/roles", { token: client.getToken() })
    const answer = await allRoles(admin.client)
    expect(answer.status).toBe(200)
    const all = answer.body as ReadonlyArray<Role>
    for (const role of all) expectShape(role, Wire.Role, role.name)
    expect(all.map((r) => r.name).sort()).toEqual([...NAMES].sort())
    const refused = await allRoles(member.client)
    expect({ status: refused.status, id: refused.body.id }).toEqual({ status: 403, id: "api.context.permissions.app_error" })
    expect(await failureOf(member.client.getRoleByName("no_such_role"))).toMatchObject({ status: 404 })
    expect(await failureOf(member.client.getRole("notanid"))).toMatchObject({ status: 400 })
    expect(await failureOf(client4(server.url).getRolesByNames(["system_user"]))).toMatchObject({ status: 401 })
  })

  it("answers a bounded list of names, and refuses an empty or oversized one", async () => {
    expect(await failureOf(member.client.getRolesByNames([]))).toMatchObject({ status: 400 })
    expect(await failureOf(member.client.getRolesByNames(Array.from({ length: 101 }, (_, i) => `r${i}`)))).toMatchObject({ status: 400 })
    expect(await failureOf(member.client.getRolesByNames(["Not A Name"]))).toMatchObject({ status: 400 })
  })
})

describe("patching a role", () => {
  it("changes its permissions (persisted), never its name, and refuses what Mattermost refuses", async () => {
    const before = await admin.client.getRoleByName("team_post_all")
    const permissions = [...before.permissions, "create_post_public", "create_post_public"]
    const patched = await admin.client.patchRole(before.id, { permissions, name: "renamed", display_name: "x" } as never)
    expectShape(patched, Wire.Role, "patched")
    expect(patched.name).toBe("team_post_all")
    expect(patched.display_name).toBe(before.display_name)
    expect([...patched.permissions].sort()).toEqual([...new Set(permissions)].sort())
    expect(patched.update_at).toBeGreaterThanOrEqual(before.update_at)
    // Read back from another node's point of view: a second server on the same database.
    const other = await startServer({ databaseUrl: server.databaseUrl })
    try {
      const seen = await client4(other.url, admin.client.getToken()).getRoleByName("team_post_all")
      expect([...seen.permissions].sort()).toEqual([...patched.permissions].sort())
    } finally {
      await other.close()
    }

    expect(await failureOf(admin.client.patchRole(before.id, { permissions: ["create_post", "fly_to_the_moon"] }))).toEqual({
      status: 400,
      id: "app.role.save.invalid_role.app_error"
    })
    expect(await failureOf(admin.client.patchRole(before.id, { permissions: Array.from({ length: 1001 }, () => "create_post") }))).toMatchObject({ status: 400 })
    // Team Edition: guest roles keep their permissions (Mattermost's license error).
    const guest = await admin.client.getRoleByName("channel_guest")
    expect(await failureOf(admin.client.patchRole(guest.id, { permissions: [] }))).toEqual({ status: 501, id: "api.roles.patch_roles.license.error" })
    expect(await failureOf(admin.client.patchRole("abcdefghijklmnopqrstuvwxyz", { permissions: [] }))).toMatchObject({ status: 404 })
  })

  it("is refused to a member (403), for system_admin as for any other role", async () => {
    for (const name of ["team_user", "system_admin"]) {
      const role = await member.client.getRoleByName(name)
      expect(await failureOf(member.client.patchRole(role.id, { permissions: [...role.permissions, "manage_system"] }))).toEqual({
        status: 403,
        id: "api.context.permissions.app_error"
      })
    }
    const unchanged = await member.client.getRoleByName("team_user")
    expect([...unchanged.permissions].sort()).toEqual(fixture.roles.team_user.permissions)
  })
})

describe("permission schemes (Team Edition)", () => {
  it("lists none, finds none, and refuses to create, patch or delete one with the license error", async () => {
    expect(await admin.client.getSchemes("team")).toEqual([])
    expect(await failureOf(admin.client.getSchemes("galaxy" as never))).toMatchObject({ status: 400 })
    expect(await failureOf(member.client.getSchemes("team"))).toEqual({ status: 403, id: "api.context.permissions.app_error" })
    expect(await failureOf(admin.client.getScheme("abcdefghijklmnopqrstuvwxyz"))).toMatchObject({ status: 404 })
    expect(await failureOf(admin.client.createScheme({ name: "s", display_name: "S", scope: "team" } as never))).toEqual({
      status: 501,
      id: "api.scheme.create_scheme.license.error"
    })
    expect(await failureOf(admin.client.patchScheme("abcdefghijklmnopqrstuvwxyz", { name: "t" }))).toEqual({
      status: 501,
      id: "api.scheme.patch_scheme.license.error"
    })
    expect(await failureOf(admin.client.deleteScheme("abcdefghijklmnopqrstuvwxyz"))).toEqual({
      status: 501,
      id: "api.scheme.delete_scheme.license.error"
    })
  })
})
