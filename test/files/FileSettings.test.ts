import { ConfigProvider, Effect, Either } from "effect"
import { describe, expect, it } from "vitest"
import { DEFAULT_MAX_FILE_SIZE, maxFileSizeFromEnv } from "../../src/files/FileSettings.ts"

const read = (env: Record<string, string>) =>
  Effect.runSync(Effect.either(Effect.withConfigProvider(maxFileSizeFromEnv, ConfigProvider.fromMap(new Map(Object.entries(env))))))

describe("SERVICE_FILES_MAX_FILE_SIZE", () => {
  it("defaults to Mattermost's 100 MiB, takes a positive byte count, and refuses anything else", () => {
    expect(read({})).toEqual(Either.right(DEFAULT_MAX_FILE_SIZE))
    expect(DEFAULT_MAX_FILE_SIZE).toBe(104_857_600)
    expect(read({ SERVICE_FILES_MAX_FILE_SIZE: "5242880" })).toEqual(Either.right(5_242_880))
    expect(Either.isLeft(read({ SERVICE_FILES_MAX_FILE_SIZE: "0" }))).toBe(true)
    expect(Either.isLeft(read({ SERVICE_FILES_MAX_FILE_SIZE: "lots" }))).toBe(true)
  })
})
