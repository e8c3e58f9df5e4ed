import { Effect, Redacted } from "effect"
import { randomUUID } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as CryptoLayer from "../../layers/Crypto.ts"
import { Crypto } from "../../layers/Crypto.ts"
import { Db } from "../../layers/Db.ts"
import { call } from "../push/support.ts"
import { RawSocket, wsUrl } from "../realtime/Sockets.ts"
import { freePort } from "../startup/Process.ts"
import { tempDir } from "../support/Cleanup.ts"
import { client4, newUser, unique } from "../support/Clients.ts"
import { hasRedis, redisUrl } from "../support/Databases.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"
import { FROM_BUILD, runCli } from "./Cli.ts"

/**
 * The admin command line (`node dist/main.js user create …`), each command spawned as an operator runs it against
 * the database and Redis of a running server, and its effect checked through Client4 and WebSocket on that server.
 */
const cluster = hasRedis() ? describe : describe.skip
if (!hasRedis()) console.log("[cli] Redis is not reachable: the admin command tests are skipped")

let server: TestServer
let cliEnv: Record<string, string>
/** Spawned from the build (dist/, made by the global set-up): the same code, and it starts several times faster. */
const admin = (args: ReadonlyArray<string>, extra: Record<string, string> = {}) => runCli(args, { ...cliEnv, ...extra }, 110_000, FROM_BUILD)
const PASSWORD = "tangerine-walrus-9"

/** Whether the username/password pair signs in on the server. */
const canLogin = (username: string, password: string) =>
  client4(server.url).login(username, password).then(() => true, () => false)

cluster("admin commands", { timeout: 120_000 }, () => {
  beforeAll(async () => {
    server = await startServer({ env: { SERVICE_CACHE_URL: redisUrl() } })
    cliEnv = {
      SERVICE_DATABASE_URL: server.databaseUrl,
      SERVICE_CACHE_URL: redisUrl(),
      SERVICE_JWT_SECRET: Redacted.value(server.config.jwtSecretValue),
      SERVICE_ENCRYPTION_KEY: Redacted.value(server.config.encryptionKeyValue),
      SERVICE_DATA_DIR: tempDir("service-admin-cli-")
    }
  }, 120_000)
  afterAll(() => server?.close())

  it("--help lists every admin command", async () => {
    const result = await runCli(["--help"], {}, 60_000, FROM_BUILD)
    expect(result.code).toBe(0)
    for (
      const command of ["user create", "user make-admin", "user remove-admin", "user reset-password", "user deactivate", "session list",
        "session revoke", "team create", "team add", "secret rotate-jwt", "secret rotate-encryption-key", "health"]
    ) expect(result.stdout).toContain(command)
  })

  it("user create makes an account that signs in, refuses a taken name and a common password, and says how to use it", async () => {
    const username = unique("cli").slice(0, 20)
    const created = await admin(["user", "create", "--username", username, "--email", `${username}@example.com`, "--password", PASSWORD, "--system-admin"])
    expect(created.stderr).toBe("")
    expect(created.code).toBe(0)
    expect(created.stdout).toContain(`created user ${username}`)
    const client = client4(server.url)
    const me = await client.login(username, PASSWORD)
    expect(me.roles).toBe("system_admin system_user")

    const again = await admin(["user", "create", "--username", username, "--email", `other-${username}@example.com`, "--password", PASSWORD])
    expect(again.code).toBe(1)
    expect(again.stderr).toContain("already exists")

    const common = await admin(["user", "create", "--username", `${username}b`, "--email", `b-${username}@example.com`, "--password", "qwerty123"])
    expect(common.code).toBe(1)
    expect(common.stderr).toContain("one of the most commonly used passwords")
    expect(await canLogin(`${username}b`, "qwerty123")).toBe(false)

    const usage = await admin(["user", "create", "--username", "someone"])
    expect(usage.code).toBe(2)
    expect(usage.stderr).toContain("--email is required")
    expect(usage.stderr).toContain("usage: user create")

    const unknown = await admin(["user", "explode"])
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toContain("unknown command: user explode")
  })

  it("user make-admin and remove-admin change the system roles, and the user's session takes them at once", async () => {
    const { client, username } = await newUser(server.url, "roles")
    expect((await client.getMe()).roles).toBe("system_user")
    const made = await admin(["user", "make-admin", username])
    expect(made.code).toBe(0)
    expect(made.stdout).toContain(`${username} is now a system admin`)
    expect((await client.getMe()).roles).toBe("system_admin system_user")
    // The session's roles changed too: an admin-only endpoint answers.
    expect((await call(server.url, "GET", "/api/v1/admin/push", client.getToken())).status).toBe(200)
    const removed = await admin(["user", "remove-admin", `${username}@example.com`])
    expect(removed.code).toBe(0)
    expect((await client.getMe()).roles).toBe("system_user")
    expect((await call(server.url, "GET", "/api/v1/admin/push", client.getToken())).status).toBe(403)
    const missing = await admin(["user", "make-admin", "nobody-by-that-name"])
    expect(missing.code).toBe(1)
    expect(missing.stderr).toContain('no user "nobody-by-that-name"')
  })

  it("user reset-password applies the sign-up password rules, signs the user out everywhere, unlocks a locked account and the new password works", async () => {
    const { client, username, password } = await newUser(server.url, "reset")
    const common = await admin(["user", "reset-password", username, "--password", "qwerty123"])
    expect(common.code).toBe(1)
    expect(common.stderr).toContain("one of the most commonly used passwords")
    expect(await canLogin(username, password)).toBe(true)
    const personal = await admin(["user", "reset-password", username, "--password", `${username.toUpperCase()}-2024!`])
    expect(personal.code).toBe(1)
    expect(personal.stderr).toContain("must not contain your username or email address")
    const repeated = await admin(["user", "reset-password", username, "--password", "a".repeat(16)])
    expect(repeated.code).toBe(1)
    expect(repeated.stderr).toContain("must not repeat one character")

    // Locked by ten wrong passwords, the account is unlocked by the reset.
    for (let i = 0; i < 10; i++) expect(await canLogin(username, `wrong-password-${i}`)).toBe(false)
    await expect(client4(server.url).login(username, password)).rejects.toMatchObject({ status_code: 401, server_error_id: "api.user.check_user_login_attempts.too_many.app_error" })
    const reset = await admin(["user", "reset-password", username, "--password", PASSWORD])
    expect(reset.code).toBe(0)
    expect(reset.stdout).toMatch(/password of .* reset; [1-9]\d* sessions? ended/)
    await expect(client.getMe()).rejects.toMatchObject({ status_code: 401 })
    expect(await canLogin(username, password)).toBe(false)
    expect(await canLogin(username, PASSWORD)).toBe(true)
  })

  it("session list shows the user's sessions; session revoke ends them and closes the user's sockets on the running server", async () => {
    const { client, user, username } = await newUser(server.url, "sess")
    const token = client.getToken()
    const [session] = await client.getSessions(user.id)
    const listed = await admin(["session", "list", username])
    expect(listed.code).toBe(0)
    expect(listed.stdout).toContain(session.id)

    const socket = new RawSocket(wsUrl(server.url), { headers: { Authorization: `Bearer ${token}` } })
    await socket.waitFor((f) => f.event === "hello", "hello")
    const wrong = await admin(["session", "revoke", username, "a".repeat(26)])
    expect(wrong.code).toBe(1)
    expect(wrong.stderr).toContain("has no session")

    const revoked = await admin(["session", "revoke", username, session.id])
    expect(revoked.code).toBe(0)
    expect(revoked.stdout).toContain(`session ${session.id} of ${username} revoked`)
    expect(await socket.waitClosed(10_000)).toEqual({ code: 1008, reason: "session ended" })
    await expect(client.getMe()).rejects.toMatchObject({ status_code: 401 })

    // Without a session id: every session of the user.
    const second = client4(server.url)
    await second.login(username, "correct-horse-battery")
    const all = await admin(["session", "revoke", username])
    expect(all.code).toBe(0)
    expect(all.stdout).toContain(`1 session of ${username} revoked`)
    await expect(second.getMe()).rejects.toMatchObject({ status_code: 401 })
  })

  it("user deactivate signs the user out, closes their sockets and refuses their sign-in", async () => {
    const { client, username, password } = await newUser(server.url, "gone")
    const socket = new RawSocket(wsUrl(server.url), { headers: { Authorization: `Bearer ${client.getToken()}` } })
    await socket.waitFor((f) => f.event === "hello", "hello")
    const result = await admin(["user", "deactivate", username])
    expect(result.code).toBe(0)
    expect(result.stdout).toContain(`${username} deactivated`)
    expect(await socket.waitClosed(10_000)).toEqual({ code: 1008, reason: "session ended" })
    expect(await canLogin(username, password)).toBe(false)
  })

  it("team create makes a team with its default channels; team add puts users in it and its channels", async () => {
    const name = unique("cliteam")
    const created = await admin(["team", "create", "--name", name, "--display-name", "CLI Team", "--private"])
    expect(created.code).toBe(0)
    expect(created.stdout).toContain(`created invite-only team ${name}`)
    const taken = await admin(["team", "create", "--name", name, "--display-name", "Again"])
    expect(taken.code).toBe(1)
    expect(taken.stderr).toContain("already exists")
    const badName = await admin(["team", "create", "--name", "No Spaces", "--display-name", "x"])
    expect(badName.code).toBe(1)

    const a = await newUser(server.url, "teama")
    const b = await newUser(server.url, "teamb")
    const added = await admin(["team", "add", name, a.username, b.user.id])
    expect(added.code).toBe(0)
    expect(added.stdout).toContain(`added to ${name}: ${a.username}, ${b.username}`)
    const team = await a.client.getTeamByName(name)
    expect(team).toMatchObject({ display_name: "CLI Team", type: "I" })
    const channels = await a.client.getMyChannels(team.id)
    expect(channels.map((c) => c.name).sort()).toEqual(["off-topic", "town-square"])
    const members = await b.client.getTeamMembers(team.id)
    expect(members.map((m) => m.user_id).sort()).toEqual([a.user.id, b.user.id].sort())
    // As mmctl's add (Mattermost's single add, no requestor): each "joined the team" in Town Square.
    const town = await a.client.getChannelByName(team.id, "town-square")
    const list = await a.client.getPosts(town.id)
    const joins = list.order.map((id) => list.posts[id]).filter((p) => String(p.type) === "system_join_team")
    expect(joins.map((p) => p.message).sort()).toEqual([`${a.username} joined the team.`, `${b.username} joined the team.`].sort())
    const again = await admin(["team", "add", name, a.username])
    expect(again.code).toBe(0)
    expect(again.stdout).toContain(`already members: ${a.username}`)
    const noTeam = await admin(["team", "add", "no-such-team", a.username])
    expect(noTeam.code).toBe(1)
  })

  it("secret rotate-encryption-key re-encrypts every stored secret under the new key, in one go", async () => {
    const { client } = await newUser(server.url, "keyadmin")
    await admin(["user", "make-admin", (await client.getMe()).username])
    const put = await call(server.url, "PUT", "/api/v1/admin/push", client.getToken(), { push_android_access_token: "android-token-value" })
    expect(put.status).toBe(200)
    // An SSO provider's client secret, encrypted by the server's own Crypto.
    await server.runtime.runPromise(Effect.gen(function*() {
      const crypto = yield* Crypto
      const db = yield* Db
      const secret = yield* crypto.encrypt("sso-client-secret")
      yield* db.execute(db.sql`
        INSERT INTO sso_providers (id, provider_key, provider_type, display_name, client_id, client_secret_encrypted, create_at, update_at)
        VALUES (${randomUUID()}, ${unique("corp")}, 'oidc', 'Corp', 'client', ${secret}, 0, 0)`)
    }))
    const stored = () =>
      server.runtime.runPromise(Effect.flatMap(Db, (db) =>
        db.read(db.sql<{ v: string }>`
          SELECT client_secret_encrypted AS v FROM sso_providers
          UNION ALL SELECT value->>'push_android_access_token' FROM server_config WHERE section = 'push'
          UNION ALL SELECT value->>'private_key_encrypted' FROM server_config WHERE section = 'signing_key'`))).then((rows) => rows.map((r) => r.v))
    const before = await stored()
    expect(before).toHaveLength(3)

    const weak = await admin(["secret", "rotate-encryption-key"], { SERVICE_NEW_ENCRYPTION_KEY: "password-password-password-password" })
    expect(weak.code).toBe(1)
    expect(weak.stderr).toContain("SERVICE_NEW_ENCRYPTION_KEY refused")
    const missing = await admin(["secret", "rotate-encryption-key"])
    expect(missing.code).toBe(1)
    expect(missing.stderr).toContain("SERVICE_NEW_ENCRYPTION_KEY")
    expect(await stored()).toEqual(before)

    const newKey = "Vt4Nq8Zr2Lp6Xw0Mb3Hj7Kd1Fs5Gc9Ya"
    const rotated = await admin(["secret", "rotate-encryption-key"], { SERVICE_NEW_ENCRYPTION_KEY: newKey })
    expect(rotated.stderr).toBe("")
    expect(rotated.code).toBe(0)
    expect(rotated.stdout).toContain("3 stored secrets re-encrypted")
    const after = await stored()
    const fresh = CryptoLayer.make(Redacted.make(newKey))
    const old = CryptoLayer.make(server.config.encryptionKeyValue)
    const plain = await Promise.all(after.map((v) => Effect.runPromise(fresh.decrypt(v))))
    expect(plain.slice(0, 2)).toEqual(["sso-client-secret", "android-token-value"])
    expect(plain[2]).toContain("BEGIN PRIVATE KEY")
    for (const v of after) expect(await Effect.runPromise(Effect.either(old.decrypt(v)))).toMatchObject({ _tag: "Left" })

    // Run again with the old key configured: nothing decrypts any more, so nothing changes.
    const stale = await admin(["secret", "rotate-encryption-key"], { SERVICE_NEW_ENCRYPTION_KEY: "Rq7Tn3Wb9Mx5Kp1Zd8Hv2Lc6Js4Fg0Ye" })
    expect(stale.code).toBe(1)
    expect(stale.stderr).toContain("nothing changed")
    expect(await stored()).toEqual(after)
  })

  it("secret rotate-jwt ends every session and says how to set the new secret", async () => {
    const a = await newUser(server.url, "jwta")
    const socket = new RawSocket(wsUrl(server.url), { headers: { Authorization: `Bearer ${a.client.getToken()}` } })
    await socket.waitFor((f) => f.event === "hello", "hello")
    const result = await admin(["secret", "rotate-jwt"])
    expect(result.code).toBe(0)
    expect(result.stdout).toMatch(/[1-9]\d* sessions? ended/)
    expect(result.stdout).toContain("set it to a new value")
    expect(await socket.waitClosed(10_000)).toEqual({ code: 1008, reason: "session ended" })
    await expect(a.client.getMe()).rejects.toMatchObject({ status_code: 401 })
  })

  it("health exits 0 when the server is ready and 1 when nothing answers", async () => {
    const ready = await admin(["health", "--url", server.url])
    expect(ready.code).toBe(0)
    expect(ready.stdout).toContain("ready")
    const port = await freePort()
    const down = await admin(["health"], { SERVICE_PORT: String(port) })
    expect(down.code).toBe(1)
    expect(down.stderr).toContain(`127.0.0.1:${port}/api/v1/health/ready does not answer`)
  })
})
