import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Exit, Schema } from "effect"
import { Int8, RowMismatch, rows } from "../../layers/Rows.ts"
import { errorAnswer, toApiError } from "../../src/http/ErrorResponse.ts"
import { UserRow } from "../../src/users/UserRow.ts"

/** A users row as the driver answers it: bigints as text, jsonb as objects, plus a column the schema does not name. */
const userRow = (i: number) => ({
  id: `user${i}`.padEnd(26, "x"),
  create_at: "1700000000000",
  update_at: "1700000000001",
  delete_at: "0",
  username: `user${i}`,
  password: "$argon2id$v=19$m=19456,t=2,p=1$abc",
  auth_data: null,
  auth_service: "",
  email: `user${i}@example.com`,
  email_verified: true,
  nickname: "",
  first_name: "First",
  last_name: "Last",
  position: "",
  roles: "system_user",
  locale: "en",
  timezone: { useAutomaticTimezone: "true", automaticTimezone: "", manualTimezone: "" },
  notify_props: { email: "true", push: "mention" },
  props: {},
  last_password_update: "1700000000000",
  last_picture_update: "0",
  failed_attempts: 0,
  mfa_active: false,
  last_login: "1700000000000",
  is_bot: false,
  visible: true
})

const Users = rows("RowsTest.users", UserRow)

describe("rows", () => {
  it.effect("decodes bigint text to numbers and keeps undeclared columns", () =>
    Effect.gen(function*() {
      const [row] = yield* Users(Effect.succeed([userRow(1)]))
      expect(row.create_at).toBe(1_700_000_000_000)
      expect(row.delete_at).toBe(0)
      expect(row.timezone.useAutomaticTimezone).toBe("true")
      expect((row as unknown as { visible: boolean }).visible).toBe(true)
    }))

  it.effect("a row that does not match dies with a RowMismatch naming the rows and the column", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(Users(Effect.succeed([userRow(1), { ...userRow(2), email_verified: "yes" }])))
      expect(Exit.isFailure(exit) && Cause.isDie(exit.cause)).toBe(true)
      const defect = Exit.isFailure(exit) ? Cause.squash(exit.cause) : undefined
      expect(defect).toBeInstanceOf(RowMismatch)
      expect(String((defect as Error).message)).toContain("RowsTest.users")
      expect(String((defect as Error).message)).toContain("email_verified")
    }))

  it("a mismatch reaches the edge as a 500 with Mattermost's error body (the edge reads defects as it reads failures)", () => {
    const answer = errorAnswer(toApiError(new RowMismatch("rows of RowsTest.users do not match their schema")), "/api/v4/users/me", "req1")
    expect(answer.status).toBe(500)
    expect(answer.body).toEqual({
      id: "api.context.internal.app_error",
      message: "An internal error occurred.",
      detailed_error: "",
      request_id: "req1",
      status_code: 500
    })
  })

  it("Int8 takes the driver's text or a number", () => {
    const decode = Schema.decodeUnknownSync(Int8)
    expect(decode("9007199254740991")).toBe(9_007_199_254_740_991)
    expect(decode(42)).toBe(42)
    expect(() => decode(null)).toThrow()
  })

  it("decodes a 60-row users result in well under a millisecond", () => {
    const input = Array.from({ length: 60 }, (_, i) => userRow(i))
    for (let i = 0; i < 2_000; i++) Users.decode(input) // warm up
    const runs = 5_000
    const start = performance.now()
    for (let i = 0; i < runs; i++) Users.decode(input)
    const micros = ((performance.now() - start) * 1000) / runs
    console.log(`rows: 60 users rows decoded in ${micros.toFixed(1)} µs`)
    expect(micros).toBeLessThan(1_000)
  })
})
