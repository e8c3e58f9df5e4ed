import { Schema } from "effect"

/**
 * A count per channel id: `POST /channels/stats/member_count` (active members) and
 * `GET /users/{user_id}/teams/{team_id}/threads/mention_counts` (unread mentions in followed threads).
 */
export const CountsByChannel = Schema.Record({ key: Schema.String, value: Schema.Number })
export type CountsByChannel = typeof CountsByChannel.Type
