import { HttpRouter } from "@effect/platform"
import { Clock, Effect, Option, Schema } from "effect"
import { ownUserId } from "../access/UserParam.ts"
import { authed } from "../auth/Guards.ts"
import { notFound } from "../http/ApiError.ts"
import * as Decode from "../http/Decode.ts"
import { ok } from "../http/Respond.ts"
import { publishUserUpdated } from "./UserEvents.ts"
import { UserRepo } from "./UserRepo.ts"

/**
 * Custom statuses live where Mattermost keeps them, in the user's props: `customStatus` (a JSON string) and
 * `recentCustomStatuses` (a JSON array, newest first), so clients find them on every UserProfile and learn of
 * changes through user_updated.
 */
const CustomStatus = Schema.Struct({
  emoji: Schema.optionalWith(Schema.String.pipe(Schema.maxLength(64)), { default: () => "" }),
  text: Schema.optionalWith(Schema.String, { default: () => "" }),
  duration: Schema.optionalWith(
    Schema.Literal("", "thirty_minutes", "one_hour", "four_hours", "today", "this_week", "date_and_time", "custom_date_time"),
    { default: () => "" as const }
  ),
  expires_at: Schema.optional(Schema.String)
})
type CustomStatus = typeof CustomStatus.Type

const TEXT_MAX = 100
const RECENT_MAX = 5
const NEVER = "0001-01-01T00:00:00Z"

const normalize = (status: CustomStatus) => {
  const text = [...status.text.trim()].slice(0, TEXT_MAX).join("")
  return {
    emoji: status.emoji === "" && text !== "" ? "speech_balloon" : status.emoji,
    text,
    duration: status.duration,
    expires_at: status.duration === "" ? NEVER : status.expires_at ?? NEVER
  }
}
type Stored = ReturnType<typeof normalize>

const sameStatus = (a: Pick<Stored, "emoji" | "text" | "duration">, b: Pick<Stored, "emoji" | "text" | "duration">) =>
  a.emoji === b.emoji && a.text === b.text && a.duration === b.duration

const readRecent = (props: Record<string, string>): Array<Stored> => {
  try {
    const parsed = JSON.parse(props.recentCustomStatuses ?? "[]") as unknown
    return Array.isArray(parsed) ? parsed as Array<Stored> : []
  } catch {
    return []
  }
}

/** Only the user sets their own custom status. */
const self = ownUserId("this user's custom status")

const rewrite = (userId: string, f: (props: Record<string, string>) => Record<string, string>) =>
  Effect.gen(function*() {
    const repo = yield* UserRepo
    const now = yield* Clock.currentTimeMillis
    const updated = yield* repo.updateProps(userId, f, now)
    if (Option.isNone(updated)) return yield* notFound("app.user.missing_account.const", "Unable to find the user.")
    yield* publishUserUpdated(updated.value)
  })

/** Sets a user's custom status, kept among their recent ones (the REST route and the /status command). */
export const setCustomStatus = (userId: string, given: CustomStatus) => {
  const status = normalize(given)
  return rewrite(userId, (props) => {
    const recent = [status, ...readRecent(props).filter((r) => !sameStatus(r, status))].slice(0, RECENT_MAX)
    return { ...props, customStatus: JSON.stringify(status), recentCustomStatuses: JSON.stringify(recent) }
  })
}

export const clearCustomStatus = (userId: string) => rewrite(userId, ({ customStatus: _, ...rest }) => rest)

const set = Effect.gen(function*() {
  const userId = yield* self
  yield* setCustomStatus(userId, yield* Decode.body(CustomStatus))
  return ok()
})

const unset = Effect.gen(function*() {
  const userId = yield* self
  yield* clearCustomStatus(userId)
  return ok()
})

const removeRecent = Effect.gen(function*() {
  const userId = yield* self
  const status = normalize(yield* Decode.body(CustomStatus))
  yield* rewrite(userId, (props) => ({
    ...props,
    recentCustomStatuses: JSON.stringify(readRecent(props).filter((r) => !sameStatus(r, status)))
  }))
  return ok()
})

export const routes = HttpRouter.empty.pipe(
  HttpRouter.put("/api/v4/users/:user_id/status/custom", authed(set)),
  HttpRouter.del("/api/v4/users/:user_id/status/custom", authed(unset)),
  HttpRouter.del("/api/v4/users/:user_id/status/custom/recent", authed(removeRecent)),
  HttpRouter.post("/api/v4/users/:user_id/status/custom/recent/delete", authed(removeRecent))
)
