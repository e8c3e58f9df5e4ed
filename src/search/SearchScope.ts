import type { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { Db } from "../../layers/Db.ts"
import { IdRow, rows } from "../../layers/Rows.ts"
import type { ParsedSearch } from "./SearchTerms.ts"
import { anyText } from "../../layers/SqlArrays.ts"

const IdUsernames = rows("SearchScope users", Schema.Struct({ id: Schema.String, username: Schema.String }))
const Ids = rows("SearchScope channel ids", IdRow)

/**
 * Which channels a search covers, as Mattermost's SQL store decides it: channels the caller is a member of (never
 * public channels they have not joined), for a team search that team's channels plus the caller's direct and group
 * messages, archived channels only when asked; narrowed by in: (channel names, `~name`, or `@username` for the direct
 * message with that user) and -in:. Users of from: and -from: are resolved to ids here too.
 */
export interface Scope {
  readonly userId: string
  readonly teamId: string | undefined
  readonly includeDeletedChannels: boolean
  readonly channelNames: ReadonlyArray<string>
  readonly excludedChannelNames: ReadonlyArray<string>
  readonly fromUserIds: ReadonlyArray<string>
  readonly excludedUserIds: ReadonlyArray<string>
  /** A from: or in: named nobody: nothing can match. */
  readonly empty: boolean
}

const directName = (a: string, b: string) => [a, b].sort().join("__")

export const resolveScope = (
  parsed: Pick<ParsedSearch, "from" | "in">,
  options: { readonly userId: string; readonly teamId: string | undefined; readonly includeDeletedChannels: boolean }
) =>
  Effect.gen(function*() {
    const db = yield* Db
    const sql = db.sql
    const username = (v: string) => v.replace(/^@/, "").toLowerCase()
    const dmTargets = [...parsed.in.values, ...parsed.in.excluded].filter((v) => v.startsWith("@")).map(username)
    const wanted = [...new Set([...parsed.from.values.map(username), ...parsed.from.excluded.map(username), ...dmTargets])]
    const users = wanted.length === 0
      ? []
      : yield* db.read(sql`
          SELECT id, lower(username) AS username FROM users WHERE lower(username) = ${anyText(sql, wanted)}`.pipe(IdUsernames))
    const idOf = new Map(users.map((u) => [u.username, u.id]))
    const ids = (names: ReadonlyArray<string>) => names.map(username).flatMap((n) => idOf.get(n) ?? [])
    const channelName = (value: string) => {
      if (!value.startsWith("@")) return value.replace(/^~/, "")
      const other = idOf.get(username(value))
      return other === undefined ? undefined : directName(options.userId, other)
    }
    const channelNames = parsed.in.values.map(channelName)
    const fromUserIds = ids(parsed.from.values)
    return {
      ...options,
      channelNames: channelNames.flatMap((n) => n ?? []),
      excludedChannelNames: parsed.in.excluded.map(channelName).flatMap((n) => n ?? []),
      fromUserIds,
      excludedUserIds: ids(parsed.from.excluded),
      empty: (parsed.from.values.length > 0 && fromUserIds.length === 0) ||
        (parsed.in.values.length > 0 && channelNames.every((n) => n === undefined))
    } satisfies Scope
  })

/** The ids of the channels searched, as a subquery (channel_members_user_id_idx, then the channel rows by key). */
export const channelsOf = (sql: SqlClient.SqlClient, scope: Scope) => sql`
  SELECT c.id FROM channel_members cm JOIN channels c ON c.id = cm.channel_id
  WHERE cm.user_id = ${scope.userId}
    ${scope.teamId === undefined ? sql`` : sql`AND (c.team_id = ${scope.teamId} OR c.team_id = '')`}
    ${scope.includeDeletedChannels ? sql`` : sql`AND c.delete_at = 0`}
    ${scope.channelNames.length === 0 ? sql`` : sql`AND c.name IN ${sql.in(scope.channelNames)}`}
    ${scope.excludedChannelNames.length === 0 ? sql`` : sql`AND c.name NOT IN ${sql.in(scope.excludedChannelNames)}`}`

/**
 * The ids of the channels searched, as a list. Post search passes them as values rather than as a subquery: the
 * planner then sees which channels it searches and their sizes (a channel of 100,000 posts among small ones), and
 * finds a rare word through the GIN index instead of walking that channel's posts newest first (measured: 220 ms
 * and every post of the channel read, against a few index pages).
 */
export const scopeChannelIds = (scope: Scope) =>
  Effect.gen(function*() {
    const db = yield* Db
    const rows = yield* db.read(db.sql`${channelsOf(db.sql, scope)}`.pipe(Ids))
    return rows.map((r) => r.id)
  })
