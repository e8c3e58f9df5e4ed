import { Effect } from "effect"
import { Db } from "../../layers/Db.ts"
import { rows } from "../../layers/Rows.ts"
import { FileInfoRow as FileInfoRowSchema } from "../files/FileInfoRows.ts"
import type { FileInfoRow } from "../files/FileInfo.ts"
import { channelsOf, type Scope } from "./SearchScope.ts"
import type { Term } from "./SearchTerms.ts"

const Files = rows("FileSearch files", FileInfoRowSchema)

/**
 * File search by name: each term is a case-insensitive substring of the file name (ILIKE), ext: filters extensions,
 * from: uploaders, dates the upload time. Only files attached to live posts in the searched channels; the channel
 * subquery and file_infos_channel_idx keep the scan to those channels' files.
 */
export interface FileSearchPlan {
  readonly scope: Scope
  readonly terms: ReadonlyArray<Term>
  readonly excludedTerms: ReadonlyArray<Term>
  readonly extensions: ReadonlyArray<string>
  readonly excludedExtensions: ReadonlyArray<string>
  readonly isOrSearch: boolean
  readonly ranges: ReadonlyArray<{ readonly from?: number; readonly to?: number; readonly negate: boolean }>
  readonly offset: number
  readonly limit: number
}

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`)

export const search = (plan: FileSearchPlan) =>
  Effect.gen(function*() {
    if (plan.scope.empty) return { rows: [] as ReadonlyArray<FileInfoRow>, hasNext: false }
    const db = yield* Db
    const sql = db.sql
    const nameMatch = (term: Term) => sql`f.name ILIKE ${`%${escapeLike(term.text)}%`}`
    const clauses = []
    if (plan.terms.length > 0) clauses.push((plan.isOrSearch ? sql.or : sql.and)(plan.terms.map(nameMatch)))
    for (const term of plan.excludedTerms) clauses.push(sql`NOT ${nameMatch(term)}`)
    const ext = (values: ReadonlyArray<string>) => values.map((e) => e.replace(/^\./, "").toLowerCase())
    if (plan.extensions.length > 0) clauses.push(sql`f.extension IN ${sql.in(ext(plan.extensions))}`)
    if (plan.excludedExtensions.length > 0) clauses.push(sql`f.extension NOT IN ${sql.in(ext(plan.excludedExtensions))}`)
    const { scope } = plan
    if (scope.fromUserIds.length > 0) clauses.push(sql`f.creator_id IN ${sql.in(scope.fromUserIds)}`)
    if (scope.excludedUserIds.length > 0) clauses.push(sql`f.creator_id NOT IN ${sql.in(scope.excludedUserIds)}`)
    for (const range of plan.ranges) {
      const within = sql.and([
        ...(range.from === undefined ? [] : [sql`f.create_at >= ${range.from}`]),
        ...(range.to === undefined ? [] : [sql`f.create_at <= ${range.to}`])
      ])
      clauses.push(range.negate ? sql`NOT ${within}` : within)
    }
    const rows = yield* db.read(sql`
      SELECT f.* FROM file_infos f JOIN posts p ON p.id = f.post_id
      WHERE f.channel_id IN (${channelsOf(sql, scope)})
        AND f.post_id <> '' AND f.delete_at = 0 AND p.delete_at = 0
        AND ${sql.and(clauses)}
      ORDER BY f.create_at DESC, f.id DESC
      LIMIT ${plan.limit + 1} OFFSET ${plan.offset}`.pipe(Files))
    return { rows: rows.slice(0, plan.limit), hasNext: rows.length > plan.limit }
  })
