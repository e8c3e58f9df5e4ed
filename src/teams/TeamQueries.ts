import type { SqlClient } from "@effect/sql"

/**
 * SQL fragments shared by the team routes. Member rows always come with their unread totals (one lateral aggregate
 * over the member's channels of that team), so that lists stay one query.
 */

/** Joins `u` (unread totals) onto rows that alias team_members as `tm`. */
export const unreadJoin = (sql: SqlClient.SqlClient) => sql`
  LEFT JOIN LATERAL (
    SELECT SUM(CASE WHEN cm.notify_props->>'mark_unread' = 'mention' THEN 0
                    ELSE GREATEST(c.total_msg_count - cm.msg_count, 0) END) AS msg_count,
           SUM(CASE WHEN cm.notify_props->>'mark_unread' = 'mention' THEN 0
                    ELSE GREATEST(c.total_msg_count_root - cm.msg_count_root, 0) END) AS msg_count_root,
           SUM(cm.mention_count) AS mention_count,
           SUM(cm.mention_count_root) AS mention_count_root
    FROM channel_members cm JOIN channels c ON c.id = cm.channel_id
    WHERE cm.user_id = tm.user_id AND c.team_id = tm.team_id AND c.delete_at = 0) u ON true`

export const memberColumns = (sql: SqlClient.SqlClient) =>
  sql`tm.*, u.msg_count, u.msg_count_root, u.mention_count, u.mention_count_root`
