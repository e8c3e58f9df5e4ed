import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { expectShape, expectStringMap, Wire } from "../compat/Shapes.ts"
import { raw } from "../compat/Raw.ts"
import { client4, newUser } from "../support/Clients.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"
import { isReservedAddress } from "../../src/system/RedirectLocation.ts"

let server: TestServer
let db: pg.Client
let adminToken: string

beforeAll(async () => {
  server = await startServer()
  db = new pg.Client({ connectionString: server.databaseUrl })
  await db.connect()
  const admin = await newUser(server.url, "admin")
  expect(admin.user.roles).toContain("system_admin")
  adminToken = admin.client.getToken()
})
afterAll(async () => {
  await db?.end()
  await server?.close()
})

const setSection = (section: string, value: unknown) =>
  db.query("UPDATE server_config SET value = $2::jsonb WHERE section = $1", [section, JSON.stringify(value)])

describe("site root and ping", () => {
  it("answers HEAD / and GET / with 200", async () => {
    const head = await fetch(`${server.url}/`, { method: "HEAD" })
    expect(head.status).toBe(200)
    const get = await fetch(`${server.url}/`)
    expect(get.status).toBe(200)
    expect(await get.text()).toContain("<html")
  })

  it("pings with the mobile fields, and CanReceiveNotifications follows the push configuration", async () => {
    const client = client4(server.url)
    const off = await client.ping(false) as unknown as Record<string, string>
    expectShape(off, Wire.Ping, "ping")
    expect(off).toMatchObject({ status: "OK", ActiveSearchBackend: "database", CanReceiveNotifications: "false", AndroidMinVersion: "", IosMinVersion: "" })

    const configure = (body: Record<string, string | null>) =>
      raw(server.url, "/api/v1/admin/push", { method: "PUT", token: adminToken, body })
    expect((await configure({ push_android_project_id: "proj", push_android_access_token: "tok" })).status).toBe(200)
    try {
      const on = await client.ping(true) as unknown as Record<string, string>
      expectShape(on, Wire.Ping, "ping with the server status")
      expect(on).toMatchObject({ status: "OK", CanReceiveNotifications: "true", database_status: "OK", filestore_status: "OK" })
      // Whether the server runs as root is for system admins only (test/system/ConsoleReplays.test.ts).
      expect(on).not.toHaveProperty("root_status")
      const anonymousConfig = await client.getClientConfig() as Record<string, string>
      expect(anonymousConfig.SendPushNotifications).toBeUndefined()
    } finally {
      await configure({ push_android_project_id: null, push_android_access_token: null })
    }
    expect((await configure({ push_android_project_id: "proj" })).status).toBe(200)
    const partial = await raw(server.url, "/api/v4/system/ping?time=1")
    expect(partial.body.CanReceiveNotifications).toBe("false")
  })
})

describe("client config and license", () => {
  it("gives anonymous callers the limited config with a stable DiagnosticId and the signing key", async () => {
    const config = await client4(server.url).getClientConfig() as Record<string, string>
    expectStringMap(config)
    expect(config.Version).toBe("10.11.0")
    expect(config.DiagnosticId).toMatch(/^[a-z0-9]{26}$/)
    expect(Buffer.from(config.AsymmetricSigningPublicKey, "base64").length).toBe(91)
    expect(config.SiteURL).toBe(server.config.siteUrl)
    expect(config.EnableSignInWithEmail).toBe("true")
    expect(config.EnableSignInWithUsername).toBe("true")
    expect(config.EnableSignUpWithOpenId).toBe("false")
    expect(config.MaxFileSize).toBeUndefined()
    // As Mattermost: the build's environment before login; the authentication transfer flag only after it.
    expect(config.ServiceEnvironment).toBe("dev")
    expect(config.ExperimentalEnableAuthenticationTransfer).toBeUndefined()
    const again = await client4(server.url).getClientConfig() as Record<string, string>
    expect(again.DiagnosticId).toBe(config.DiagnosticId)
  })

  it("gives a session the full config", async () => {
    const { client } = await newUser(server.url, "cfg")
    const config = await client.getClientConfig() as Record<string, string>
    expectStringMap(config)
    expect(config).toMatchObject({
      Version: "10.11.0",
      MaxFileSize: "104857600",
      CollapsedThreads: "default_on",
      FeatureFlagCollapsedThreads: "true",
      EnableCustomEmoji: "true",
      SendPushNotifications: "false",
      ServiceEnvironment: "dev",
      ExperimentalEnableAuthenticationTransfer: "true"
    })
    expect(config.BuildNumber).not.toBe("")
  })

  it("reports ServiceEnvironment production before and after login on a production server", async () => {
    const production = await startServer({ env: { SERVICE_ENVIRONMENT: "production", SERVICE_SITE_URL: "https://chat.example.com" } })
    try {
      expect((await client4(production.url).getClientConfig() as Record<string, string>).ServiceEnvironment).toBe("production")
      const { client } = await newUser(production.url, "prod")
      expect(await client.getClientConfig()).toMatchObject({ ServiceEnvironment: "production", ExperimentalEnableAuthenticationTransfer: "true" })
    } finally {
      await production.close()
    }
  })

  it("reflects SSO providers and require_sso in the login options", async () => {
    await db.query(`INSERT INTO sso_providers (id, provider_key, provider_type, display_name, issuer_url, client_id,
                      client_secret_encrypted, is_active, create_at, update_at)
                    VALUES (gen_random_uuid(), 'corp', 'oidc', 'Corp Login', 'https://idp.example.com', 'c', 'x', true, 1, 1),
                           (gen_random_uuid(), 'code', 'codehost', 'Code', null, 'c', 'x', true, 2, 2),
                           (gen_random_uuid(), 'web', 'webidp', 'Web', 'https://accounts.example.com', 'c', 'x', false, 3, 3)`)
    try {
      const disabled = await client4(server.url).getClientConfig() as Record<string, string>
      expect(disabled.EnableSignUpWithOpenId).toBe("false")

      await setSection("sso", { enable_sso: true, require_sso: false })
      const enabled = await client4(server.url).getClientConfig() as Record<string, string>
      expect(enabled).toMatchObject({
        EnableSignUpWithOpenId: "true",
        OpenIdButtonText: "Corp Login",
        EnableSignUpWithGitLab: "true",
        EnableSignUpWithGoogle: "false",
        EnableSignInWithEmail: "true"
      })

      await setSection("sso", { enable_sso: true, require_sso: true })
      const required = await client4(server.url).getClientConfig() as Record<string, string>
      expect(required.EnableSignInWithEmail).toBe("false")
      expect(required.EnableSignInWithUsername).toBe("false")
    } finally {
      await setSection("sso", { enable_sso: false, require_sso: false })
      await db.query("DELETE FROM sso_providers")
    }
  })

  it("requires format=old: missing is 400, another format 501", async () => {
    const missing = await raw(server.url, "/api/v4/config/client")
    expect(missing.status).toBe(400)
    expect(missing.body).toMatchObject({ id: "api.context.invalid_param.app_error", status_code: 400 })
    const other = await raw(server.url, "/api/v4/config/client?format=new")
    expect(other.status).toBe(501)
    expect(other.body.id).toBe("api.config.client.old_format.app_error")
  })

  it("reports an unlicensed server as Mattermost does: IsLicensed alone, no seat fields", async () => {
    const license = await client4(server.url).getClientLicenseOld() as Record<string, string>
    expectStringMap(license)
    expectShape(license, Wire.StringMap, "client license")
    // Mattermost's GetClientLicense(nil); a `Users` field would make the web app warn admins of exceeded seats.
    expect(license).toEqual({ IsLicensed: "false" })
  })
})

describe("roles, limits, time zones", () => {
  it("returns roles by names with real permission lists", async () => {
    const { client } = await newUser(server.url, "roles")
    const names = ["system_admin", "system_user", "system_guest", "team_admin", "team_user", "team_guest", "channel_admin", "channel_user", "channel_guest"]
    const roles = await client.getRolesByNames([...names, "no_such_role"])
    expect(roles.map((r) => r.name).sort()).toEqual([...names].sort())
    for (const role of roles) expectShape(role, Wire.Role, role.name)
    const byName = Object.fromEntries(roles.map((r) => [r.name, r]))
    expect(byName.channel_user.permissions).toEqual(expect.arrayContaining(["create_post", "read_channel", "add_reaction", "upload_file", "edit_post", "delete_post"]))
    expect(byName.system_user.permissions).toEqual(expect.arrayContaining(["create_direct_channel", "create_group_channel", "create_team"]))
    expect(byName.team_user.permissions).toEqual(expect.arrayContaining(["join_public_channels", "create_public_channel", "create_private_channel"]))
    expect(byName.system_admin.permissions).toEqual(expect.arrayContaining(["manage_system", "create_post", "manage_team", "delete_others_posts"]))
    expect(byName.channel_guest.permissions).not.toContain("manage_public_channel_members")

    const one = await client.getRoleByName("team_admin")
    expect(one.permissions).toContain("manage_team")
    expect(await client.getRole(one.id)).toEqual(one)
    await expect(client.getRoleByName("nope")).rejects.toMatchObject({ status_code: 404 })
    await expect(client.getRole("notanid")).rejects.toMatchObject({ status_code: 400 })
    await expect(client4(server.url).getRolesByNames(["system_user"])).rejects.toMatchObject({ status_code: 401 })
  })

  it("serves server limits and time zones to a session", async () => {
    const { client } = await newUser(server.url, "limits")
    const limits = await client.getServerLimits()
    expectShape(limits.data, Wire.ServerLimits)
    expect(limits.data.activeUserCount).toBeGreaterThan(0)
    const zones = await raw(server.url, "/api/v4/system/timezones", { token: client.getToken() })
    expect(zones.status).toBe(200)
    expect(expectShape(zones.body, Wire.TimezoneNames, "time zones")).toContain("Europe/Paris")
  })
})

describe("plugins", () => {
  it("lists the built-in Calls plugin, active and running, to system admins only", async () => {
    const list = await raw(server.url, "/api/v4/plugins", { token: adminToken })
    expect(list.status).toBe(200)
    const plugins = expectShape(list.body, Wire.PluginsResponse, "plugins")
    expect(plugins.active.map((p) => p.id)).toEqual(["com.mattermost.calls"])
    expect(plugins.inactive).toEqual([])
    const statuses = await raw(server.url, "/api/v4/plugins/statuses", { token: adminToken })
    expect(statuses.status).toBe(200)
    expect((statuses.body as Array<unknown>).map((s, i) => expectShape(s, Wire.PluginStatus, `statuses[${i}]`).plugin_id)).toEqual(["com.mattermost.calls"])
    const { client } = await newUser(server.url, "plugins")
    expect((await raw(server.url, "/api/v4/plugins", { token: client.getToken() })).status).toBe(403)
  })
})

describe("redirect_location", () => {
  it("refuses malformed URLs and never connects to reserved addresses", async () => {
    const { client } = await newUser(server.url, "redir")
    const token = client.getToken()
    const bad = await raw(server.url, "/api/v4/redirect_location?url=not-a-url", { token })
    expect(bad.status).toBe(400)
    const internal = await raw(server.url, `/api/v4/redirect_location?url=${encodeURIComponent(`${server.url}/`)}`, { token })
    expect(internal.status).toBe(200)
    expect(expectShape(internal.body, Wire.RedirectLocation, "redirect location")).toEqual({ location: "" })
    expect(isReservedAddress("127.0.0.1")).toBe(true)
    expect(isReservedAddress("10.1.2.3")).toBe(true)
    expect(isReservedAddress("::1")).toBe(true)
    expect(isReservedAddress("::ffff:127.0.0.1")).toBe(true)
    expect(isReservedAddress("93.184.216.34")).toBe(false)
    const anonymous = await raw(server.url, "/api/v4/redirect_location?url=https%3A%2F%2Fexample.com")
    expect(anonymous.status).toBe(401)
  })
})
