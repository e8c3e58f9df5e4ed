import { HttpRouter } from "@effect/platform"
import { Effect, Schema } from "effect"
import { Access } from "../access/Access.ts"
import { authed, CurrentCaller } from "../auth/Guards.ts"
import { toWire as fileToWire } from "../files/FileInfo.ts"
import { badRequest, invalidParam } from "../http/ApiError.ts"
import * as Decode from "../http/Decode.ts"
import { json, respondWith } from "../http/Respond.ts"
import { FileSearchResults } from "../../schemas/wire/FileInfo.ts"
import { PostRepo } from "../posts/PostRepo.ts"
import { postList, postSearchResults } from "../posts/PostWire.ts"
import * as FileSearch from "./FileSearch.ts"
import { matchesIn } from "./Matches.ts"
import * as PostSearch from "./PostSearch.ts"
import { resolveScope } from "./SearchScope.ts"
import { dateRanges, parseSearch, termCount } from "./SearchTerms.ts"
import { SearchLimits, TextOf } from "../../schemas/Limits.ts"

/** POST /teams/{id}/posts/search, /posts/search, /teams/{id}/files/search and /files/search (api4/post.go, file.go). */

const MAX_PER_PAGE = 200

/** Mattermost's SearchParameter; clients send numbers and booleans, some send null for the unset ones. */
const SearchBody = Schema.Struct({
  terms: TextOf(SearchLimits.termsLength),
  is_or_search: Schema.optionalWith(Schema.Boolean, { nullable: true, default: () => false }),
  time_zone_offset: Schema.optionalWith(Schema.Number, { nullable: true, default: () => 0 }),
  include_deleted_channels: Schema.optionalWith(Schema.Boolean, { nullable: true, default: () => false }),
  page: Schema.optionalWith(Schema.Number.pipe(Schema.int(), Schema.nonNegative()), { nullable: true, default: () => 0 }),
  per_page: Schema.optionalWith(Schema.Number.pipe(Schema.int(), Schema.positive()), { nullable: true, default: () => 60 })
})

const TeamParams = Schema.Struct({ team_id: Decode.Id })

/** The caller, the team (checked) when the route names one, the body, and the parsed terms with their scope. */
const prepare = (withTeam: boolean) =>
  Effect.gen(function*() {
    const caller = yield* CurrentCaller
    let teamId: string | undefined
    if (withTeam) {
      teamId = (yield* Decode.params(TeamParams)).team_id
      const access = yield* Access
      yield* access.team(caller, teamId)
    }
    const body = yield* Decode.body(SearchBody)
    if (body.terms.trim() === "") return yield* invalidParam("terms")
    const parsed = parseSearch(body.terms)
    if (termCount(parsed) > SearchLimits.terms) {
      return yield* badRequest(
        "api.context.invalid_param.app_error",
        `Invalid terms parameter in request body: at most ${SearchLimits.terms} words, phrases and flags.`
      )
    }
    const scope = yield* resolveScope(parsed, { userId: caller.userId, teamId, includeDeletedChannels: body.include_deleted_channels })
    const limit = Math.min(body.per_page, MAX_PER_PAGE)
    return {
      caller,
      parsed,
      scope,
      isOrSearch: body.is_or_search,
      ranges: dateRanges(parsed.dates, body.time_zone_offset),
      offset: body.page * limit,
      limit
    }
  })

/**
 * Results carry whole posts: the body is built by the post mappers (src/posts/PostWire.ts), whose output
 * test/compat/WireMappers.test.ts checks against PostSearchResults, rather than a Schema encode of every post.
 */
const searchPosts = (withTeam: boolean) =>
  Effect.gen(function*() {
    const { caller, parsed, ...plan } = yield* prepare(withTeam)
    const { ids, hasNext } = yield* PostSearch.search({ ...plan, terms: parsed.terms, excludedTerms: parsed.excludedTerms })
    const posts = yield* Effect.flatMap(PostRepo, (repo) =>
      repo.hydrate(ids, { viewer: caller, collapsedThreads: false, extended: false }))
    const order = posts.map((p) => p.id as string)
    const matches = Object.fromEntries(posts.map((p) => [p.id as string, matchesIn(p.message as string, parsed.terms)]))
    return json(postSearchResults(postList(order, posts, { has_next: hasNext }), matches))
  })

const searchFiles = (withTeam: boolean) =>
  Effect.gen(function*() {
    const { parsed, ...plan } = yield* prepare(withTeam)
    const { rows, hasNext } = yield* FileSearch.search({
      ...plan,
      terms: parsed.terms,
      excludedTerms: parsed.excludedTerms,
      extensions: parsed.ext.values,
      excludedExtensions: parsed.ext.excluded
    })
    return yield* respondWith(FileSearchResults, {
      order: rows.map((r) => r.id),
      file_infos: Object.fromEntries(rows.map((r) => [r.id, fileToWire(r)])),
      next_file_info_id: "",
      prev_file_info_id: "",
      has_next: hasNext
    })
  })

export const routes = HttpRouter.empty.pipe(
  HttpRouter.post("/api/v4/teams/:team_id/posts/search", authed(searchPosts(true))),
  HttpRouter.post("/api/v4/posts/search", authed(searchPosts(false))),
  HttpRouter.post("/api/v4/teams/:team_id/files/search", authed(searchFiles(true))),
  HttpRouter.post("/api/v4/files/search", authed(searchFiles(false)))
)
