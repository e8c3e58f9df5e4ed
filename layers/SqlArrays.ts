import type { SqlClient, Statement } from "@effect/sql"

/**
 * `ANY(...)` over a list of text ids, for `column = ${anyText(sql, ids)}`: one array parameter, so one statement text
 * (one named prepared statement, layers/ServiceClient.ts) whatever the list's length, and that array hidden in a
 * sub-select, so that PostgreSQL keeps the generic plan. Given as a plain value, each custom plan saw how many ids
 * there are, and for the usual one to a few it looked cheaper than the generic plan (costed for 10), so the statement
 * was planned again on every run (issue 31: 0.5-1.3 ms of planning against 0.1-0.9 ms of execution). The outer cast
 * makes it ANY's array form rather than its sub-query form (`text = text[]` otherwise). Not for searches, where a
 * custom plan for the actual list is the point. test/performance/HotPlans.test.ts holds the plans kept.
 */
export const anyText = (sql: SqlClient.SqlClient, ids: ReadonlyArray<string>): Statement.Fragment =>
  sql`ANY((SELECT ${[...ids]}::text[])::text[])`
