import pg from "pg"
import { randomBytes } from "node:crypto"
import { inject } from "vitest"

/** A fresh, empty database for one test file, on the PostgreSQL the global setup found. */
export const createTestDatabase = async (): Promise<string> => {
  const adminUrl = inject("pgAdminUrl")
  const name = `test_${randomBytes(6).toString("hex")}`
  const admin = new pg.Client({ connectionString: adminUrl })
  await admin.connect()
  try {
    await admin.query(`CREATE DATABASE ${name}`)
  } finally {
    await admin.end()
  }
  const url = new URL(adminUrl)
  url.pathname = `/${name}`
  return url.toString()
}

export const redisUrl = (): string => inject("redisUrl")
export const hasRedis = (): boolean => inject("redisUrl") !== ""
