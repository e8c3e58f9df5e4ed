import { Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { FROM_BUILD, runCli, spawnMain } from "../cli/Cli.ts"
import { client4 } from "../support/Clients.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"
import { expectedCounts, writeLargeSlackZip } from "./SlackLargeExport.ts"

/**
 * A large generated Slack export (SLACK_LARGE_MESSAGES, 100,000 messages by default, as issue 30 asks of npm test:
 * 174 s on the 2-core machine loaded by parallel work, see README; set it lower for a quick local run) with a 96 MiB shared file, imported through the built CLI. The CLI reports its time and peak
 * memory; the test asserts both. The memory limit is below what holding the zip (over 100 MiB on disk) or the whole
 * converted export would take, so a change that loads either whole fails here.
 */
const MESSAGES = Number(process.env.SLACK_LARGE_MESSAGES ?? 100_000)
const SPEC = { messages: MESSAGES, channels: 25, people: 60, upload: Number(process.env.SLACK_LARGE_UPLOAD_MIB ?? 96) * 1024 * 1024 }
const PEAK_MIB = 330
/** The JavaScript heap the CLI runs in: an import that kept messages beyond a conversation would run out of it. */
const HEAP_MIB = Number(process.env.SLACK_LARGE_HEAP_MIB ?? 256)
/** "Minutes" for 100,000 messages: at least 250 messages a second, whatever the size (the rate must not fall with it). */
const SECONDS = Math.max(240, MESSAGES / 250)

let server: TestServer
let cliEnv: Record<string, string>
let reader: ReturnType<typeof client4>

const figures = (stdout: string) => {
  const match = /took ([\d.]+) s, peak memory (\d+) MiB/.exec(stdout)
  return match === null ? undefined : { seconds: Number(match[1]), mib: Number(match[2]) }
}

describe(`a Slack export of ${MESSAGES} messages`, { timeout: SECONDS * 3 * 1000 }, () => {
  let zip: string
  beforeAll(async () => {
    server = await startServer()
    reader = client4(server.url)
    cliEnv = {
      SERVICE_DATABASE_URL: server.databaseUrl,
      SERVICE_JWT_SECRET: Redacted.value(server.config.jwtSecretValue),
      SERVICE_ENCRYPTION_KEY: Redacted.value(server.config.encryptionKeyValue),
      SERVICE_DATA_DIR: server.config.dataDir
    }
    // The first account is the system admin, who reads the imported channels through the API.
    await reader.createUser({ username: "reader", email: "reader@example.com", password: "correct-horse-battery" } as never, "", "")
    await reader.login("reader", "correct-horse-battery")
    zip = await writeLargeSlackZip(SPEC)
  }, 120_000)
  afterAll(async () => {
    await server?.close()
  })

  it("imports in bounded time and memory, and every message is there once", async () => {
    const run = await runCli(["--import-slack", zip, "--team", "big"], cliEnv, SECONDS * 1000, [`--max-old-space-size=${HEAP_MIB}`, ...FROM_BUILD])
    expect(run.code, run.output.slice(-3000)).toBe(0)
    const measured = figures(run.stdout)!
    console.log(`${MESSAGES} messages: ${measured.seconds} s, peak RSS ${measured.mib} MiB`)
    expect(measured.seconds).toBeLessThan(SECONDS)
    expect(measured.mib).toBeLessThan(PEAK_MIB)
    expect(run.stdout).toContain(`${SPEC.people} persons`)
    expect(run.stdout).toContain(`${MESSAGES} messages, 1 file`)
    // Progress on the terminal: each conversation as it is read, then the lines as they are written.
    expect(run.stderr).toMatch(/reading channel-24 \(25\/26, \d+ days\)/)
    expect(run.stderr).toMatch(/importing: \d+\/\d+ lines/)

    const counts = expectedCounts(SPEC)
    const team = await reader.getTeamByName("big")
    await reader.addToTeam(team.id, (await reader.getMe()).id)
    let total = 0
    for (let c = 0; c < SPEC.channels; c++) {
      const channel = await reader.getChannelByName(team.id, `channel-${c}`)
      expect(channel.total_msg_count, `channel-${c}`).toBe(counts.perChannel(c))
      expect(channel.creator_id).toBe((await reader.getUserByUsername("person.0")).id)
      total += channel.total_msg_count
    }
    expect(total).toBe(counts.channel)
  })
})

/** Waits (condition-based) until `test` holds, checking every 50 ms. */
const until = async (test: () => boolean, timeoutMs: number, what: string) => {
  const deadline = Date.now() + timeoutMs
  while (!test()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

describe("a Slack import killed part-way", { timeout: 600_000 }, () => {
  const spec = { messages: 20_000, channels: 5, people: 20 }
  let crashServer: TestServer
  let env: Record<string, string>
  let admin: ReturnType<typeof client4>
  beforeAll(async () => {
    crashServer = await startServer()
    env = {
      SERVICE_DATABASE_URL: crashServer.databaseUrl,
      SERVICE_JWT_SECRET: Redacted.value(crashServer.config.jwtSecretValue),
      SERVICE_ENCRYPTION_KEY: Redacted.value(crashServer.config.encryptionKeyValue),
      SERVICE_DATA_DIR: crashServer.config.dataDir
    }
    admin = client4(crashServer.url)
    await admin.createUser({ username: "sysadmin", email: "sysadmin@example.com", password: "correct-horse-battery" } as never, "", "")
    await admin.login("sysadmin", "correct-horse-battery")
  }, 120_000)
  afterAll(async () => {
    await crashServer?.close()
  })

  it("is resumed by running it again: nothing duplicated, everything there", async () => {
    const zip = await writeLargeSlackZip(spec)
    // Killed (SIGKILL, as a crash or an OOM kill would) once batches have been committed.
    const { child, written } = spawnMain(["--import-slack", zip, "--team", "resumed"], env, FROM_BUILD)
    child.stdin.end()
    const exited = new Promise((resolve) => child.on("close", resolve))
    const committed = () => Number(/importing: (\d+)\/\d+ lines/.exec(written.stderr.split("\n").filter((l) => /importing: [1-9]/.test(l)).pop() ?? "")?.[1] ?? 0)
    // Killed on the progress line itself (an idle machine imports the rest within the interval of a polling wait).
    child.stderr.on("data", () => {
      if (committed() >= 500 && child.exitCode === null) child.kill("SIGKILL")
    })
    await until(() => child.exitCode !== null || child.signalCode !== null, 300_000, "the import to commit batches and be killed")
    expect(child.signalCode, written.stderr).toBe("SIGKILL")
    await exited

    const team = await admin.getTeamByName("resumed")
    await admin.addToTeam(team.id, (await admin.getMe()).id)
    // Part of the posts are in (the batches committed before the kill), not all.
    const channel0 = await admin.getChannelByName(team.id, "channel-0")
    expect((await admin.getPosts(channel0.id, 0, 10)).order.length).toBeGreaterThan(0)

    const rerun = await runCli(["--import-slack", zip, "--team", "resumed"], env, 300_000, FROM_BUILD)
    expect(rerun.code, rerun.output.slice(-3000)).toBe(0)
    expect(rerun.stdout).toMatch(/already there: .*post [1-9]/)
    expect(rerun.stdout).toMatch(/created: .*post [1-9]/)
    for (let c = 0; c < spec.channels; c++) {
      const channel = await admin.getChannelByName(team.id, `channel-${c}`)
      expect(channel.total_msg_count, `channel-${c}`).toBe(expectedCounts(spec).perChannel(c))
    }
    const third = await runCli(["--import-slack", zip, "--team", "resumed"], env, 300_000, FROM_BUILD)
    expect(third.code, third.output.slice(-3000)).toBe(0)
    expect(third.stdout).toContain("created: nothing")
  })
})
