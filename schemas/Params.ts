import { ParseResult, Schema } from "effect"

/**
 * Ids and the path and query parameters many routes share, declared once. Ids are branded by what they name, so a
 * channel id cannot be passed where a team id is expected once it has been decoded.
 */

/** A 26-character Mattermost id. */
export const ID_PATTERN = /^[a-z0-9]{26}$/
export const isId = (value: string) => ID_PATTERN.test(value)

/** A 26-character Mattermost id, as path and body fields carry them. */
export const Id = Schema.String.pipe(Schema.pattern(ID_PATTERN, { message: () => "expected a 26-character id" }))

export const UserId = Id.pipe(Schema.brand("UserId"))
export type UserId = typeof UserId.Type
export const TeamId = Id.pipe(Schema.brand("TeamId"))
export type TeamId = typeof TeamId.Type
export const ChannelId = Id.pipe(Schema.brand("ChannelId"))
export type ChannelId = typeof ChannelId.Type
export const PostId = Id.pipe(Schema.brand("PostId"))
export type PostId = typeof PostId.Type

/** A `{user_id}` path segment: "me" (the caller) or an id. */
export const UserIdOrMe = Schema.Union(Schema.Literal("me"), UserId)

/** Why a number cannot be stored exactly (beyond the integers JavaScript and bigint columns hold), if it cannot. */
export const numberProblem = (n: number): string | undefined =>
  Number.isFinite(n) && Math.abs(n) <= Number.MAX_SAFE_INTEGER ? undefined : `is out of range (at most ${Number.MAX_SAFE_INTEGER} either way)`

/** "true"/"false" query flags; anything else (including "") is false. */
export const QueryBool = Schema.transform(Schema.String, Schema.Boolean, {
  strict: true,
  decode: (s) => s === "true",
  encode: (b) => (b ? "true" : "false")
})

/** Integer query values; "" counts as absent. */
export const QueryInt = (fallback: number, bounds: { min?: number; max?: number } = {}) =>
  Schema.optionalWith(
    Schema.transformOrFail(Schema.String, Schema.Number, {
      strict: true,
      decode: (s, _, ast) => {
        if (s === "") return ParseResult.succeed(fallback)
        const n = Number(s)
        if (!Number.isInteger(n)) return ParseResult.fail(new ParseResult.Type(ast, s, "expected an integer"))
        const range = numberProblem(n)
        if (range !== undefined) return ParseResult.fail(new ParseResult.Type(ast, s, range))
        if (bounds.min !== undefined && n < bounds.min) return ParseResult.fail(new ParseResult.Type(ast, s, `must be at least ${bounds.min}`))
        return ParseResult.succeed(bounds.max !== undefined ? Math.min(n, bounds.max) : n)
      },
      encode: (n) => ParseResult.succeed(String(n))
    }),
    { default: () => fallback }
  )

/** page/per_page as Mattermost clients send them (per_page capped at 200). */
export const Paging = {
  page: QueryInt(0, { min: 0 }),
  per_page: QueryInt(60, { min: 0, max: 200 })
}
export const PagingQuery = Schema.Struct(Paging)

export const TeamParams = Schema.Struct({ team_id: TeamId })
export const ChannelParams = Schema.Struct({ channel_id: ChannelId })
export const PostParams = Schema.Struct({ post_id: PostId })
export const UserParams = Schema.Struct({ user_id: UserIdOrMe })
