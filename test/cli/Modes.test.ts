import pg from "pg"
import { describe, expect, inject, it } from "vitest"
import { tempDir } from "../support/Cleanup.ts"
import { createTestDatabase } from "../support/Databases.ts"
import { FROM_BUILD, runCli } from "./Cli.ts"

const tables = async (url: string) => {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    const result = await client.query<{ table_name: string }>(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'"
    )
    return result.rows.map((r) => r.table_name)
  } finally {
    await client.end()
  }
}

/**
 * The CLI's modes, run on the production build (built once by the global setup; it starts several times faster than
 * the sources through tsx). `npm start` from the sources is proven by test/startup/Startup.test.ts.
 */
const cli = (args: ReadonlyArray<string>, vars: Record<string, string> = {}) => runCli(args, vars, 110_000, FROM_BUILD)

describe.concurrent("CLI modes", { timeout: 120_000 }, () => {
  it("--help prints the flags and exits 0", async () => {
    const result = await cli(["--help"])
    expect(result.code).toBe(0)
    for (const flag of ["--check-config", "--migrate-only", "--help"]) expect(result.stdout).toContain(flag)
  })

  it("an unknown flag prints the help and exits 2", async () => {
    const result = await cli(["--serve-forever"])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain("unknown flag: --serve-forever")
    expect(result.stderr).toContain("--check-config")
  })

  it("--migrate-only applies the migrations to a fresh database and exits 0", async () => {
    const url = await createTestDatabase()
    expect(await tables(url)).toEqual([])
    const result = await cli(["--migrate-only"], {
      SERVICE_DATABASE_URL: url,
      SERVICE_DATA_DIR: tempDir("service-cli-")
    })
    expect(result.code).toBe(0)
    expect(result.stdout).toContain("migrations applied")
    const after = await tables(url)
    for (const table of ["users", "sessions", "posts", "effect_sql_migrations"]) expect(after).toContain(table)
    const again = await cli(["--migrate-only"], { SERVICE_DATABASE_URL: url, SERVICE_DATA_DIR: tempDir("service-cli-") })
    expect(again.code).toBe(0)
    expect(again.stdout).toContain("database schema is up to date")
  })

  it("a start-up failure exits 1 with the cause logged as JSON", async () => {
    const missing = new URL(inject("pgAdminUrl"))
    missing.pathname = "/no_such_database_for_the_service"
    const result = await cli([], {
      SERVICE_DATABASE_URL: missing.toString(),
      SERVICE_PORT: "1",
      SERVICE_DATA_DIR: tempDir("service-cli-")
    })
    expect(result.code).toBe(1)
    const fatal = result.stdout.split("\n").filter((l) => l.startsWith("{")).map((l) => JSON.parse(l))
      .find((l) => l.logLevel === "FATAL")
    expect(fatal).toMatchObject({ message: "the service stopped on an error" })
    expect(String(fatal.cause)).toContain("no_such_database_for_the_service")
  })

  it("the server refuses to start with query-string WebSocket tokens allowed, exiting 1 with the reason", async () => {
    const result = await cli([], { SERVICE_SECURITY_WS_ALLOW_QUERY_TOKEN: "true", SERVICE_PORT: "1" })
    expect(result.code).toBe(1)
    expect(result.stderr).toContain("configuration invalid")
    expect(result.stderr).toMatch(/SERVICE_SECURITY_WS_ALLOW_QUERY_TOKEN: .*must be false/)
    expect(result.stdout).not.toContain("Listening on")
  })
})
