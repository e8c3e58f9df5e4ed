import type { Channel } from "@mattermost/types/channels"
import type { Team } from "@mattermost/types/teams"
import { readdirSync } from "node:fs"
import sharp from "sharp"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { raw } from "../compat/Raw.ts"
import { expectShape, Wire } from "../compat/Shapes.ts"
import { client4, failureOf, newUser, unique } from "../support/Clients.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"

/**
 * The System Console's loading sequences, replayed with Client4: for each page, the calls the official web app
 * (webapp/channels/src/components/admin_console/…, Mattermost 10.x) makes when the page opens, in its order, each
 * answering without a 4xx or 5xx and in the @mattermost/types shape (the wire Schemas, unknown fields refused).
 * Where a Team Edition server answers a call with an error, the test expects exactly that answer.
 */
type Member = Awaited<ReturnType<typeof newUser>>

let server: TestServer
let admin: Member
let alice: Member
let team: Team
let channel: Channel

beforeAll(async () => {
  server = await startServer()
  admin = await newUser(server.url, "admin")
  alice = await newUser(server.url, "alice")
  team = await admin.client.createTeam({ name: unique("console"), display_name: "Console", type: "O" } as Team)
  await admin.client.addToTeam(team.id, alice.user.id)
  channel = await admin.client.createChannel({ team_id: team.id, name: unique("chan"), display_name: "Replayed", type: "O" } as Channel)
  await admin.client.addToChannel(alice.user.id, channel.id)
  await alice.client.createPost({ channel_id: channel.id, message: "counted by the statistics" } as never)
})
afterAll(() => server?.close())

const ids = (rows: ReadonlyArray<{ id: string }>) => rows.map((r) => r.id)

/** admin_console.tsx loadRolesIfNeeded: the console renders nothing until all of these are loaded. */
const MAIN_ROLES = [
  "channel_user", "team_user", "system_user", "channel_admin", "team_admin", "system_admin",
  "system_user_manager", "system_custom_group_admin", "system_read_only_admin", "system_manager"
]

describe("every console page: the shell (admin_console.tsx, system_notice, admin_sidebar)", () => {
  it("loads the configuration, its environment overrides, the standard statistics and the plugins", async () => {
    const config = expectShape(await admin.client.getConfig(), Wire.Config, "config")
    expectShape(await admin.client.getEnvironmentConfig(), Wire.ConfigEnvironment, "environment config")
    // SystemNotice (system admins): the standard analytics feed the ee_upgrade_advice notice.
    for (const row of await admin.client.getAnalytics("standard")) expectShape(row, Wire.AnalyticsRow, "analytics row")
    // AdminSidebar lists plugin pages when plugins are on.
    if (config.PluginSettings.Enable) expectShape(await admin.client.getPlugins(), Wire.PluginsResponse, "plugins")
  })

  it("gives no reason for a false \"Notice from Mattermost\": InstallationDate is the installation's, after APIv3", async () => {
    const before = Date.now()
    const full = expectShape(await admin.client.getClientConfig(), Wire.StringMap, "client config") as Record<string, string>
    const installed = Number(full.InstallationDate)
    // notices.tsx shows apiv3_deprecation unless InstallationDate >= 16 June 2018.
    expect(installed).toBeGreaterThanOrEqual(new Date(2018, 5, 16).getTime())
    expect(installed).toBeLessThanOrEqual(before)
    // Stored once: the same after a restart of the configuration read, and the same on a second read.
    expect((await alice.client.getClientConfig() as Record<string, string>).InstallationDate).toBe(full.InstallationDate)
    // Only the full configuration carries it, as in Mattermost (ClientConfigWithComputed).
    expect((await client4(server.url).getClientConfig() as Record<string, string>).InstallationDate).toBeUndefined()
  })

  it("says in the client config what the configuration document says", async () => {
    const client = await admin.client.getClientConfig() as Record<string, string>
    const doc = await admin.client.getConfig() as unknown as Record<string, Record<string, unknown>>
    const pairs: Array<[string, string, string]> = [
      ["SiteName", "TeamSettings", "SiteName"], ["EnableCustomBrand", "TeamSettings", "EnableCustomBrand"],
      ["EnableOnboardingFlow", "ServiceSettings", "EnableOnboardingFlow"], ["EnableTutorial", "ServiceSettings", "EnableTutorial"],
      ["EnablePreviewFeatures", "ServiceSettings", "EnablePreviewFeatures"], ["EnableTesting", "ServiceSettings", "EnableTesting"],
      ["EnableClientPerformanceDebugging", "ServiceSettings", "EnableClientPerformanceDebugging"],
      ["PersistentNotificationMaxCount", "ServiceSettings", "PersistentNotificationMaxCount"],
      ["ManagedResourcePaths", "ServiceSettings", "ManagedResourcePaths"],
      ["EnableFile", "LogSettings", "EnableFile"], ["FileLevel", "LogSettings", "FileLevel"], ["EnableDiagnostics", "LogSettings", "EnableDiagnostics"],
      ["EmailLoginButtonColor", "EmailSettings", "LoginButtonColor"], ["EnablePreviewModeBanner", "EmailSettings", "EnablePreviewModeBanner"],
      ["EnableAskCommunityLink", "SupportSettings", "EnableAskCommunityLink"], ["AppDownloadLink", "NativeAppSettings", "AppDownloadLink"],
      ["RunJobs", "JobSettings", "RunJobs"], ["CWSURL", "CloudSettings", "CWSURL"], ["DisableAppBar", "ExperimentalSettings", "DisableAppBar"]
    ]
    for (const [key, section, setting] of pairs) expect([key, client[key]]).toEqual([key, String(doc[section][setting])])
  })

  // Without all ten (system_user_manager, system_custom_group_admin, system_read_only_admin and system_manager
  // included) the console renders nothing.
  it("loads the ten main roles the console waits for", async () => {
    const roles = await admin.client.getRolesByNames(MAIN_ROLES)
    for (const role of roles) expectShape(role, Wire.Role, `role ${role.name}`)
    expect(roles.map((r) => r.name).sort()).toEqual([...MAIN_ROLES].sort())
  })
})

describe("About > Edition and License (license_settings.tsx) and the About dialog (about_build_modal)", () => {
  it("answers a Team Edition server's upgrade status, licence and user count", async () => {
    expect(await admin.client.upgradeToEnterpriseStatus()).toEqual({ percentage: 0, error: null })
    expect(await admin.client.getClientLicenseOld()).toEqual({ IsLicensed: "false" })
    expectShape(await admin.client.getFilteredUsersStats({ include_bots: false, include_deleted: false }), Wire.UsersStats, "users stats")
    // The "Upgrade to Enterprise Edition" button: this server cannot replace itself with Mattermost's Enterprise build.
    expect(await failureOf(admin.client.upgradeToEnterprise())).toEqual({ status: 403, id: "api.upgrade_to_enterprise.generic_error.app_error" })
    expect(await failureOf(alice.client.upgradeToEnterpriseStatus())).toMatchObject({ status: 403 })
    expect(await failureOf(alice.client.upgradeToEnterprise())).toMatchObject({ status: 403 })
    expect(await failureOf(client4(server.url).upgradeToEnterpriseStatus())).toMatchObject({ status: 401 })
  })

  it("shows the build, its date and the database schema version", async () => {
    const config = await admin.client.getClientConfig() as Record<string, string>
    expect(config).toMatchObject({ Version: "10.11.0", BuildNumber: "1", BuildEnterpriseReady: "false", BuildHashEnterprise: "none", SQLDriverName: "postgres" })
    expect(config.BuildHash).toMatch(/^[0-9a-f]{40}$/)
    // `date -u` as Mattermost's builds print it.
    expect(config.BuildDate).toMatch(/^(Mon|Tue|Wed|Thu|Fri|Sat|Sun) [A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d UTC \d{4}$/)
    expect(Number.isNaN(Date.parse(config.BuildDate.replace(" UTC", "")))).toBe(false)
    const migrations = await admin.client.getAppliedSchemaMigrations()
    for (const m of migrations) expectShape(m, Wire.SchemaMigration, "schema migration")
    const files = readdirSync(new URL("../../migrations/", import.meta.url)).filter((f) => /^\d+_[\w-]+\.sql$/.test(f))
    expect(migrations.map((m) => `${String(m.version).padStart(4, "0")}_${m.name}.sql`)).toEqual(files.sort())
    expect(migrations.map((m) => m.version)).toEqual([...migrations.map((m) => m.version)].sort((a, b) => a - b))
    expect(config.SchemaVersion).toBe(String(migrations.at(-1)!.version))
    expect(await failureOf(alice.client.getAppliedSchemaMigrations())).toMatchObject({ status: 403 })
  })

  it("tells system admins alone whether the server runs as root", async () => {
    const ping = expectShape(await admin.client.ping(true), Wire.Ping, "ping")
    expect(ping).toMatchObject({ status: "OK", database_status: "OK", filestore_status: "OK", root_status: process.geteuid?.() === 0 })
    expect(await alice.client.ping(true)).not.toHaveProperty("root_status")
  })
})

describe("Reporting > Workspace Optimization (workspace-optimization/dashboard_checks)", () => {
  // Servers whose SERVICE_SITE_URL is a live instance of this service (the main test server) and a dead port.
  let live: TestServer
  let dead: TestServer
  beforeAll(async () => {
    ;[live, dead] = await Promise.all([startServer({ env: { SERVICE_SITE_URL: server.url } }), startServer({ env: { SERVICE_SITE_URL: "http://127.0.0.1:1" } })])
  })
  afterAll(async () => {
    await Promise.all([live?.close(), dead?.close()])
  })

  it("passes the web server check when the site URL answers, fails it when not, and tests no other URL", async () => {
    const liveAdmin = await newUser(live.url, "liveadmin")
    const config = await liveAdmin.client.getConfig()
    // access.ts siteURLCheck: testSiteURL(config.ServiceSettings.SiteURL); an error marks the web server misconfigured.
    expect(await liveAdmin.client.testSiteURL(config.ServiceSettings.SiteURL)).toEqual({ status: "OK" })
    expect(await failureOf(liveAdmin.client.testSiteURL("http://169.254.169.254"))).toEqual({ status: 400, id: "app.admin.test_site_url.not_configured" })
    expect(await failureOf(liveAdmin.client.testSiteURL(""))).toMatchObject({ status: 400 })
    const member = await newUser(live.url, "livemember")
    expect(await failureOf(member.client.testSiteURL(config.ServiceSettings.SiteURL))).toMatchObject({ status: 403 })

    const deadAdmin = await newUser(dead.url, "deadadmin")
    expect(await failureOf(deadAdmin.client.testSiteURL("http://127.0.0.1:1"))).toEqual({ status: 400, id: "app.admin.test_site_url.failure" })

    // updates.ts reads /latest_version with a plain fetch and only needs JSON back (no tag_name: no update shown).
    const latest = await fetch(`${live.url}/api/v4/latest_version`, { headers: { authorization: `BEARER ${liveAdmin.client.getToken()}` } })
    expect(latest.headers.get("content-type")).toBe("application/json")
    expect(await latest.json()).not.toHaveProperty("tag_name")
  })
})

describe("User Management > Users (system_users)", () => {
  it("loads the user report, its count, the totals and the teams of the filter", async () => {
    const report = await admin.client.getUsersForReporting({ page_size: 50, sort_column: "Username", sort_direction: "asc", direction: "next" } as never)
    for (const row of report) expectShape(row, Wire.UserReport, "user report row")
    expect(ids(report)).toEqual(expect.arrayContaining([admin.user.id, alice.user.id]))
    expect(await admin.client.getUserCountForReporting({} as never)).toBe(report.length)
    expectShape(await admin.client.getFilteredUsersStats({ include_bots: false }), Wire.UsersStats, "users stats")
    const teams = await admin.client.getTeams(0, 50) as Array<Team>
    for (const t of teams) expectShape(t, Wire.Team, "team")
  })
})

describe("User Management > Teams (team_list, team_details, team_members)", () => {
  it("lists teams with their total, then opens a team with its members and their roles", async () => {
    const page = await admin.client.searchTeams("", { page: 0, per_page: 10 } as never) as unknown as { teams: Array<Team>; total_count: number }
    for (const t of page.teams) expectShape(t, Wire.Team, "team")
    expect(page.total_count).toBeGreaterThanOrEqual(1)
    expectShape(await admin.client.getTeam(team.id), Wire.Team, "team")
    expectShape(await admin.client.getTeamStats(team.id), Wire.TeamStats, "team stats")
    expect(await admin.client.getAllGroupsAssociatedToTeam(team.id, false, true)).toEqual({ groups: [], total_group_count: 0 })
    const members = await admin.client.getProfilesInTeam(team.id, 0, 10, "", { active: true })
    for (const u of members) expectShape(u, Wire.User, "user")
    for (const m of await admin.client.getTeamMembersByIds(team.id, ids(members))) expectShape(m, Wire.TeamMember, "team member")
    expect((await admin.client.getFilteredUsersStats({ in_team: team.id, include_bots: true })).total_users_count).toBe(2)
  })
})

describe("User Management > Channels (channel_list, channel_details, channel_members)", () => {
  it("lists every channel with its team and total, then opens a channel with its members", async () => {
    const page = await admin.client.searchAllChannels("", { page: 0, per_page: 10, include_deleted: true } as never) as unknown as { channels: Array<unknown>; total_count: number }
    for (const c of page.channels) expectShape(c, Wire.ChannelWithTeamData, "channel with team data")
    expect(page.total_count).toBeGreaterThanOrEqual(3)
    expectShape(await admin.client.getChannel(channel.id), Wire.Channel, "channel")
    expectShape(await admin.client.getTeam(channel.team_id), Wire.Team, "team")
    expectShape(await admin.client.getChannelStats(channel.id), Wire.ChannelStats, "channel stats")
    const members = await admin.client.getProfilesInChannel(channel.id, 0, 10, "", { active: true })
    expect(ids(members).sort()).toEqual([admin.user.id, alice.user.id].sort())
    for (const m of await admin.client.getChannelMembersByIds(channel.id, ids(members))) expectShape(m, Wire.ChannelMember, "channel member")
    expect((await admin.client.getFilteredUsersStats({ in_channel: channel.id, include_bots: true })).total_users_count).toBe(2)
  })
})

describe("Reporting > Site Statistics (system_analytics)", () => {
  it("loads the standard figures and the three per-day series", async () => {
    const standard = await admin.client.getAnalytics("standard")
    for (const row of standard) expectShape(row, Wire.AnalyticsRow, "analytics row")
    expect(standard.find((r) => r.name === "post_count")?.value).toBeGreaterThanOrEqual(1)
    for (const name of ["post_counts_day", "bot_post_counts_day", "user_counts_with_posts_day"]) {
      for (const row of await admin.client.getAnalytics(name)) expectShape(row, Wire.AnalyticsRow, name)
    }
  })
})

const png = async (width: number, height: number) =>
  new Uint8Array(await sharp({ create: { width, height, channels: 3, background: "#3060c0" } }).jpeg().toBuffer())

describe("Site Configuration > Customization (custom_brand, brand_image_setting)", () => {
  it("reads the brand settings, uploads, shows and removes the brand image, and the login page's texts follow", async () => {
    const brand = await raw(server.url, "/api/v4/brand/image?t=0")
    expect(brand.status).toBe(404)
    expect(brand.body).toMatchObject({ id: "api.admin.get_brand_image.not_found.app_error", status_code: 404 })

    const image = await png(40, 20)
    expect(await admin.client.uploadBrandImage(new File([image], "brand.jpg", { type: "image/jpeg" }))).toEqual({ status: "OK" })
    const shown = await raw(server.url, "/api/v4/brand/image?t=1")
    expect(shown).toMatchObject({ status: 200, type: "image/png" })
    expect(await sharp(Buffer.from(shown.body as Uint8Array)).metadata()).toMatchObject({ format: "png", width: 40, height: 20 })

    const config = await admin.client.getConfig()
    expect(config.TeamSettings).toMatchObject({ EnableCustomBrand: false, CustomBrandText: "", CustomDescriptionText: "" })
    await admin.client.patchConfig({ TeamSettings: { EnableCustomBrand: true, CustomBrandText: "**Welcome**", CustomDescriptionText: "Our chat" } } as never)
    const login = await client4(server.url).getClientConfig() as Record<string, string>
    expect(login).toMatchObject({ EnableCustomBrand: "true", CustomBrandText: "**Welcome**", CustomDescriptionText: "Our chat" })
    await admin.client.patchConfig({ TeamSettings: { EnableCustomBrand: false, CustomBrandText: "", CustomDescriptionText: "" } } as never)

    expect(await admin.client.deleteBrandImage()).toEqual({ status: "OK" })
    expect((await raw(server.url, "/api/v4/brand/image")).status).toBe(404)
    expect(await failureOf(admin.client.deleteBrandImage())).toEqual({ status: 404, id: "api.admin.delete_brand_image.storage.not_found" })
  })

  it("lets system admins alone change it, and refuses what is not an image or too big", async () => {
    const image = new File([await png(8, 8)], "b.jpg", { type: "image/jpeg" })
    expect(await failureOf(alice.client.uploadBrandImage(image))).toMatchObject({ status: 403 })
    expect(await failureOf(alice.client.deleteBrandImage())).toMatchObject({ status: 403 })
    expect(await failureOf(client4(server.url).uploadBrandImage(image))).toMatchObject({ status: 401 })
    expect(await failureOf(admin.client.uploadBrandImage(new File(["not an image"], "b.png", { type: "image/png" }))))
      .toEqual({ status: 400, id: "brand.save_brand_image.decode.app_error" })
    const noImage = new FormData()
    noImage.append("other", new Blob([await png(8, 8)]), "b.jpg")
    const missing = await raw(server.url, "/api/v4/brand/image", { method: "POST", token: admin.client.getToken(), body: noImage })
    expect(missing).toMatchObject({ status: 400, body: { id: "api.admin.upload_brand_image.no_file.app_error" } })
    const huge = new FormData()
    huge.append("image", new Blob([new Uint8Array(11 * 1024 * 1024)]), "huge.png")
    const tooBig = await raw(server.url, "/api/v4/brand/image", { method: "POST", token: admin.client.getToken(), body: huge })
    expect(tooBig).toMatchObject({ status: 413, body: { id: "api.admin.upload_brand_image.too_large.app_error" } })
    expect((await raw(server.url, "/api/v4/brand/image")).status).toBe(404)
    const long = await failureOf(admin.client.patchConfig({ TeamSettings: { CustomBrandText: "x".repeat(4001) } } as never))
    expect(long).toMatchObject({ status: 400 })
  })
})

describe("User Management > Permissions (permission_schemes_settings, permission_system_scheme_settings)", () => {
  it("lists no team override schemes (so the system scheme stays editable) and loads the built-in roles", async () => {
    expect(await admin.client.getSchemes("team", 0, 30)).toEqual([])
    expect(await admin.client.getSchemes("channel", 0, 30)).toEqual([])
    expect((await raw(server.url, "/api/v4/schemes?scope=everything", { token: admin.client.getToken() })).status).toBe(400)
    expect(await failureOf(alice.client.getSchemes("team", 0, 30))).toMatchObject({ status: 403 })
    const names = ["system_admin", "system_user", "system_guest", "team_admin", "team_user", "team_guest", "channel_admin", "channel_user", "channel_guest"]
    const roles = await admin.client.getRolesByNames(names)
    for (const role of roles) expectShape(role, Wire.Role, `role ${role.name}`)
    expect(roles.map((r) => r.name).sort()).toEqual([...names].sort())
  })
})

describe("Integrations (Integration Management, Bot Accounts, GIF, CORS)", () => {
  it("are configuration pages: the settings they show are in the configuration document", async () => {
    const config = await admin.client.getConfig()
    expect(config.ServiceSettings).toMatchObject({
      EnableIncomingWebhooks: expect.any(Boolean),
      EnableOutgoingWebhooks: expect.any(Boolean),
      EnableCommands: expect.any(Boolean),
      EnableUserAccessTokens: expect.any(Boolean),
      EnableBotAccountCreation: expect.any(Boolean),
      EnableOAuthServiceProvider: false,
      EnableGifPicker: expect.any(Boolean),
      AllowCorsFrom: expect.any(String)
    })
  })
})

describe("the first administrator's setup (/preparing-workspace, EnableOnboardingFlow)", () => {
  let fresh: TestServer
  let first: Member
  beforeAll(async () => {
    fresh = await startServer()
  })
  afterAll(() => fresh?.close())

  it("walks the first admin of an empty server through naming the organization, which names the first team and the site", async () => {
    first = await newUser(fresh.url, "founder")
    const config = await first.client.getClientConfig() as Record<string, string>
    expect(config.EnableOnboardingFlow).toBe("true")
    // redirectToOnboardingOrDefaultTeam: no team, setup not complete, the only system admin -> /preparing-workspace.
    expect(await first.client.getMyTeams()).toEqual([])
    expect(expectShape(await first.client.getFirstAdminSetupComplete(), Wire.OnboardingState, "setup state")).toEqual({ name: "FirstAdminSetupComplete", value: "false" })
    expect(ids(await first.client.getProfiles(0, 100, { roles: ["system_admin"] } as never))).toEqual([first.user.id])
    // Organization step: the teams, then the team named after the organization.
    expect(await first.client.getTeams(0, 60)).toEqual([])
    const orgTeam = await first.client.createTeam({ display_name: "Acme Works", name: unique("acme"), type: "O" } as Team)
    // The last step completes the setup; plugins are off, so none are installed.
    expect(await first.client.completeSetup({ organization: "Acme Works", install_plugins: [] })).toEqual({ status: "OK" })
    expect(await first.client.getFirstAdminSetupComplete()).toEqual({ name: "FirstAdminSetupComplete", value: "true" })
    expect((await client4(fresh.url).getClientConfig() as Record<string, string>).SiteName).toBe("Acme Works")
    expect(ids(await first.client.getMyTeams())).toEqual([orgTeam.id])
    // Then the admin's "Getting started" checklist (onboarding_tasklist): shown and opened through preferences.
    const tasks = [
      { user_id: first.user.id, category: "onboarding_task_list", name: "onboarding_task_list_show", value: "true" },
      { user_id: first.user.id, category: "onboarding_task_list", name: "onboarding_task_list_open", value: "true" }
    ]
    expect(await first.client.savePreferences(first.user.id, tasks)).toEqual({ status: "OK" })
    const saved = (await first.client.getMyPreferences() as unknown as Array<{ category: string; name: string; value: string }>)
      .filter((p) => p.category === "onboarding_task_list")
    for (const p of saved) expectShape(p, Wire.Preference, "preference")
    expect(saved.map((p) => p.name).sort()).toEqual(["onboarding_task_list_open", "onboarding_task_list_show"])

    // A second setup keeps the site name an administrator (or the first setup) chose.
    await first.client.completeSetup({ organization: "Other Name", install_plugins: [] })
    expect((await client4(fresh.url).getClientConfig() as Record<string, string>).SiteName).toBe("Acme Works")
  })

  it("is for system admins only", async () => {
    const someone = await newUser(fresh.url, "someone")
    expect(await failureOf(someone.client.getFirstAdminSetupComplete())).toMatchObject({ status: 403 })
    expect(await failureOf(someone.client.completeSetup({ organization: "Mine", install_plugins: [] })))
      .toEqual({ status: 403, id: "app.system.complete_onboarding_request.no_first_user" })
    expect(await failureOf(client4(fresh.url).getFirstAdminSetupComplete())).toMatchObject({ status: 401 })
    expect((await client4(fresh.url).getClientConfig() as Record<string, string>).SiteName).toBe("Acme Works")
  })

  it("refuses a missing, overlong or malformed request with 400", async () => {
    const token = first.client.getToken()
    const post = (body: unknown) => raw(fresh.url, "/api/v4/system/onboarding/complete", { method: "POST", token, body })
    expect((await post({ organization: "  ", install_plugins: [] })).body).toMatchObject({ status_code: 400, id: "api.error_no_organization_name_provided_for_self_hosted_onboarding" })
    expect((await post({ organization: "x".repeat(65) })).status).toBe(400)
    expect((await post({ organization: "Fine", install_plugins: Array.from({ length: 51 }, () => "p") })).status).toBe(400)
    expect((await post({ organization: 42 })).status).toBe(400)
    expect((await raw(fresh.url, "/api/v4/system/onboarding/complete", { method: "POST", token, body: "{" })).status).toBe(400)
  })
})
