import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { Db } from "../../layers/Db.ts"
import { IdRow, rows } from "../../layers/Rows.ts"
import { type Scope, scopeChannelIds } from "./SearchScope.ts"
import type { Term } from "./SearchTerms.ts"

const Ids = rows("PostSearch ids", IdRow)

/**
 * Post search on PostgreSQL full-text search. Words, prefixes, phrases and hashtags become one tsquery matched
 * against posts.search_vector, so the GIN index posts_search_idx (migration 0001) finds the candidates; test/search
 * checks with EXPLAIN that the planner uses it. The tsquery is built from plainto_tsquery, phraseto_tsquery and a
 * sanitised to_tsquery for prefixes, never by pasting user text into tsquery syntax. Exact phrases are rechecked with
 * ILIKE (the tsquery's <-> ignores punctuation and stemming differences), hashtags against posts.hashtags (so that
 * #release does not match a plain "release"); in an OR search the rechecks are left out, since a post needs to match
 * only one term.
 */
export interface PostSearchPlan {
  readonly scope: Scope
  readonly terms: ReadonlyArray<Term>
  readonly excludedTerms: ReadonlyArray<Term>
  readonly isOrSearch: boolean
  readonly ranges: ReadonlyArray<{ readonly from?: number; readonly to?: number; readonly negate: boolean }>
  readonly offset: number
  readonly limit: number
}

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`)

/** `'tok' & 'prefi':*` from the word characters of a prefix term; undefined when it has none. */
const prefixQuery = (text: string) => {
  const tokens = text.split(/[^\p{L}\p{N}_]+/u).filter((t) => t !== "")
  if (tokens.length === 0) return undefined
  return tokens.map((t, i) => `'${t}'${i === tokens.length - 1 ? ":*" : ""}`).join(" & ")
}

const tsquery = (sql: SqlClient.SqlClient, term: Term) => {
  switch (term.kind) {
    case "phrase":
      return sql`phraseto_tsquery('english', ${term.text})`
    case "prefix": {
      const query = prefixQuery(term.text)
      return query === undefined ? undefined : sql`to_tsquery('english', ${query})`
    }
    default:
      return sql`plainto_tsquery('english', ${term.text})`
  }
}

const hashtagMatch = (sql: SqlClient.SqlClient, tag: string) =>
  sql`(' ' || lower(p.hashtags) || ' ') LIKE ${`% #${escapeLike(tag.toLowerCase())} %`}`

/** The statement that picks one page of matching post ids, newest first (one more than the page, to tell has_next). */
export const searchStatement = (sql: SqlClient.SqlClient, plan: PostSearchPlan, channelIds: ReadonlyArray<string>) => {
  const positive = plan.terms.flatMap((t) => tsquery(sql, t) ?? [])
  // An excluded hashtag excludes the tag, not the word: it is only rechecked below.
  const negative = plan.excludedTerms.filter((t) => t.kind !== "hashtag").flatMap((t) => tsquery(sql, t) ?? [])
  const clauses = []
  if (positive.length > 0 || negative.length > 0) {
    const required = positive.length === 0 ? [] : [sql.join(plan.isOrSearch ? " || " : " && ", true)(positive)]
    const query = sql.join(" && ", true)([...required, ...negative.map((q) => sql`!!${q}`)])
    clauses.push(sql`p.search_vector @@ ${query}`)
  }
  if (!plan.isOrSearch) {
    for (const term of plan.terms) {
      if (term.kind === "phrase") clauses.push(sql`p.message ILIKE ${`%${escapeLike(term.text)}%`}`)
      if (term.kind === "hashtag") clauses.push(hashtagMatch(sql, term.text))
    }
  }
  for (const term of plan.excludedTerms) {
    if (term.kind === "hashtag") clauses.push(sql`NOT ${hashtagMatch(sql, term.text)}`)
  }
  const { scope } = plan
  if (scope.fromUserIds.length > 0) clauses.push(sql`p.user_id IN ${sql.in(scope.fromUserIds)}`)
  if (scope.excludedUserIds.length > 0) clauses.push(sql`p.user_id NOT IN ${sql.in(scope.excludedUserIds)}`)
  for (const range of plan.ranges) {
    const within = sql.and([
      ...(range.from === undefined ? [] : [sql`p.create_at >= ${range.from}`]),
      ...(range.to === undefined ? [] : [sql`p.create_at <= ${range.to}`])
    ])
    clauses.push(range.negate ? sql`NOT ${within}` : within)
  }
  return sql`
    SELECT p.id FROM posts p
    WHERE p.channel_id = ANY(${[...channelIds]})
      AND p.delete_at = 0
      AND p.type NOT LIKE 'system\\_%'
      AND ${sql.and(clauses)}
    ORDER BY p.create_at DESC, p.id DESC
    LIMIT ${plan.limit + 1} OFFSET ${plan.offset}`
}

/** One page of ids and whether more follow. */
export const search = (plan: PostSearchPlan) =>
  Effect.gen(function*() {
    if (plan.scope.empty) return { ids: [] as ReadonlyArray<string>, hasNext: false }
    const channelIds = yield* scopeChannelIds(plan.scope)
    if (channelIds.length === 0) return { ids: [] as ReadonlyArray<string>, hasNext: false }
    const db = yield* Db
    const rows = yield* db.read(searchStatement(db.sql, plan, channelIds).pipe(Ids))
    return { ids: rows.slice(0, plan.limit).map((r) => r.id), hasNext: rows.length > plan.limit }
  })
