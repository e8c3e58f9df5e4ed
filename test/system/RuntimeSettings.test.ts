import { Redacted } from "effect"
import * as OTPAuth from "otpauth"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { FROM_BUILD, runCli } from "../cli/Cli.ts"
import { tempDir } from "../support/Cleanup.ts"
import { client4, failureOf, newUser, unique } from "../support/Clients.ts"
import { hasRedis, redisUrl } from "../support/Databases.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"

/**
 * System Console settings the server honours at run time (issue 29), saved through PUT /config/patch on one node and
 * in force on the other at once, without a restart (src/system/RuntimeSettings.ts: each node's copy, reloaded when
 * a change is announced over Redis): PasswordSettings everywhere a password is set, and the enforced second factor.
 */
const cluster = hasRedis() ? describe : describe.skip
if (!hasRedis()) console.log("[settings] Redis is not reachable: the two-node settings tests are skipped")

let nodeA: TestServer
let nodeB: TestServer
let admin: Awaited<ReturnType<typeof newUser>>

const codeOf = (secret: string) =>
  new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), digits: 6, period: 30, algorithm: "SHA1" }).generate()

/** The outcome of a Client4 call: "ok", or the status and Mattermost error id. */
const outcome = (call: Promise<unknown>) =>
  call.then(() => "ok", (e: { status_code: number; server_error_id: string }) => `${e.status_code} ${e.server_error_id}`)

/** Polls until `probe` answers `expected` (a change announced on one node reaches the other within milliseconds). */
const until = async (probe: () => Promise<string>, expected: string) => {
  await expect.poll(probe, { timeout: 5_000, interval: 50 }).toBe(expected)
}

const signUp = (node: TestServer, password: string, domain = "example.com") => {
  const username = unique("rs").slice(0, 20)
  return outcome(client4(node.url).createUser({ username, email: `${username}@${domain}`, password } as never, "", ""))
}

cluster("settings saved on one node, honoured on both", { timeout: 120_000 }, () => {
  beforeAll(async () => {
    const env = { SERVICE_CACHE_URL: redisUrl() }
    nodeA = await startServer({ env })
    nodeB = await startServer({ env, databaseUrl: nodeA.databaseUrl })
    admin = await newUser(nodeA.url, "rsadmin") // the first account: system admin
  })
  afterAll(async () => {
    await nodeB?.close()
    await nodeA?.close()
  })

  it("PasswordSettings: validated as Mattermost, then enforced at sign-up, own change, an admin's set and the CLI on both nodes", async () => {
    expect(await outcome(admin.client.patchConfig({ PasswordSettings: { MinimumLength: 4 } } as never))).toBe("400 model.config.is_valid.password_length.app_error")
    expect(await outcome(admin.client.patchConfig({ PasswordSettings: { MinimumLength: 73 } } as never))).toBe("400 model.config.is_valid.password_length.app_error")
    expect(await outcome(admin.client.patchConfig({ PasswordSettings: { Uppercase: "yes" } } as never))).toBe("400 api.config.update.invalid_value.app_error")
    const member = await newUser(nodeB.url, "rsmember")

    const saved = await admin.client.patchConfig({ PasswordSettings: { MinimumLength: 12, Uppercase: true, Number: true, Symbol: true } } as never)
    expect(saved.PasswordSettings).toMatchObject({ MinimumLength: 12, Lowercase: false, Uppercase: true, Number: true, Symbol: true })
    // Node B refuses at once what it accepted before: each missing class named in the id, as Mattermost builds it.
    await until(() => signUp(nodeB, "correct-horse-battery"), "400 model.user.is_valid.pwd_uppercase_number.app_error")
    expect(await signUp(nodeB, "Short-1x")).toBe("400 model.user.is_valid.pwd_min_length.app_error")
    expect(await signUp(nodeA, "Correct horse battery")).toBe("400 model.user.is_valid.pwd_number.app_error")
    expect(await signUp(nodeB, "Correct-horse-battery-9")).toBe("ok")
    const clientConfig = await client4(nodeB.url, member.client.getToken()).getClientConfig() as unknown as Record<string, string>
    expect(clientConfig).toMatchObject({ PasswordMinimumLength: "12", PasswordRequireUppercase: "true", PasswordRequireNumber: "true", PasswordRequireSymbol: "true", PasswordRequireLowercase: "false" })

    const onB = client4(nodeB.url, member.client.getToken())
    expect(await outcome(onB.updateUserPassword(member.user.id, member.password, "tangerine-walrus-rocks"))).toBe("400 model.user.is_valid.pwd_uppercase_number.app_error")
    expect(await outcome(client4(nodeB.url, admin.client.getToken()).updateUserPassword(member.user.id, "", "Tangerine-walrus"))).toBe("400 model.user.is_valid.pwd_number.app_error")
    expect(await outcome(onB.updateUserPassword(member.user.id, member.password, "Tangerine-walrus-9"))).toBe("ok")

    const cli = await runCli(
      ["user", "create", "--username", unique("rscli").slice(0, 20), "--email", `${unique("rscli")}@example.com`, "--password", "tangerine-walrus-rocks"],
      {
        SERVICE_DATABASE_URL: nodeA.databaseUrl,
        SERVICE_CACHE_URL: redisUrl(),
        SERVICE_JWT_SECRET: Redacted.value(nodeA.config.jwtSecretValue),
        SERVICE_ENCRYPTION_KEY: Redacted.value(nodeA.config.encryptionKeyValue),
        SERVICE_DATA_DIR: tempDir("service-settings-cli-")
      },
      110_000,
      FROM_BUILD
    )
    expect(cli.code).toBe(1)
    expect(cli.stderr).toContain("at least 12 characters, an uppercase letter, a number, a symbol")

    await admin.client.patchConfig({ PasswordSettings: { MinimumLength: 8, Uppercase: false, Number: false, Symbol: false } } as never)
    await until(() => signUp(nodeB, "correct-horse-battery"), "ok")
  })

  it("EnforceMultifactorAuthentication: a member without a second factor gets 403 on both nodes except to set one up, then everything", async () => {
    // The administrator sets up a second factor first: enforcement binds administrators too (as in Mattermost).
    const adminSecret = await admin.client.generateMfaSecret(admin.user.id)
    await admin.client.updateUserMfa(admin.user.id, true, codeOf(adminSecret.secret))
    const member = await newUser(nodeA.url, "rsmfa")
    const onB = client4(nodeB.url, member.client.getToken())
    expect(await outcome(onB.getMyTeams())).toBe("ok")

    const saved = await admin.client.patchConfig({ ServiceSettings: { EnforceMultifactorAuthentication: true } } as never)
    expect(saved.ServiceSettings).toMatchObject({ EnableMultifactorAuthentication: true, EnforceMultifactorAuthentication: true })
    await until(() => outcome(onB.getMyTeams()), "403 api.context.mfa_required.app_error")
    // The fast path's requests are refused the same way (unread counts, a channel's posts).
    expect(await outcome(onB.getMyTeamUnreads())).toBe("403 api.context.mfa_required.app_error")
    expect(await outcome(member.client.getMyTeams())).toBe("403 api.context.mfa_required.app_error")
    // What setting one up needs still works: the own profile, the client config, generating and activating a secret.
    expect((await onB.getMe()).id).toBe(member.user.id)
    expect((await onB.getClientConfig() as unknown as Record<string, string>).EnforceMultifactorAuthentication).toBe("true")
    const { secret } = await onB.generateMfaSecret(member.user.id)
    await onB.updateUserMfa(member.user.id, true, codeOf(secret))
    await until(() => outcome(onB.getMyTeams()), "ok")
    expect(await outcome(member.client.getMyTeamUnreads())).toBe("ok")

    // Off again (the administrator, who has a second factor, may change it); a newcomer is free on both nodes.
    await admin.client.patchConfig({ ServiceSettings: { EnforceMultifactorAuthentication: false } } as never)
    const newcomer = await newUser(nodeA.url, "rsfree")
    await until(() => outcome(client4(nodeB.url, newcomer.client.getToken()).getMyTeams()), "ok")

    // With MFA disabled, none is set up (Mattermost's 501), and enforcement has no effect.
    await admin.client.patchConfig({ ServiceSettings: { EnableMultifactorAuthentication: false, EnforceMultifactorAuthentication: true } } as never)
    await until(() => outcome(client4(nodeB.url, newcomer.client.getToken()).generateMfaSecret(newcomer.user.id)), "501 mfa.mfa_disabled.app_error")
    expect(await outcome(client4(nodeB.url, newcomer.client.getToken()).getMyTeams())).toBe("ok")
    expect((await newcomer.client.getClientConfig() as unknown as Record<string, string>).EnforceMultifactorAuthentication).toBe("false")
    await admin.client.patchConfig({ ServiceSettings: { EnableMultifactorAuthentication: true, EnforceMultifactorAuthentication: false } } as never)
  })
})
