import { Effect, Schema } from "effect"
import type { DbService } from "../../layers/Db.ts"
import { Int8, rows } from "../../layers/Rows.ts"

/**
 * SQL for mention and direct-message emails (migration 0130): who may be mailed about a post, the waiting
 * notifications, and what a mail about them shows. Each read is one query whatever the number of recipients.
 */

export const EmailCandidate = Schema.Struct({
  user_id: Schema.String,
  mentioned: Schema.Boolean,
  user_email: Schema.NullOr(Schema.String),
  email_threads: Schema.NullOr(Schema.String),
  channel_email: Schema.NullOr(Schema.String),
  mark_unread: Schema.NullOr(Schema.String),
  status: Schema.String,
  email_interval: Schema.NullOr(Schema.String)
})
export type EmailCandidate = typeof EmailCandidate.Type

export const WaitingUser = Schema.Struct({
  user_id: Schema.String,
  first_at: Int8,
  status: Schema.String,
  last_activity_at: Int8,
  email_interval: Schema.NullOr(Schema.String)
})
export type WaitingUser = typeof WaitingUser.Type

export const MailedPost = Schema.Struct({
  user_id: Schema.String,
  email: Schema.String,
  post_id: Schema.String,
  create_at: Int8,
  message: Schema.String,
  sender: Schema.String,
  channel_type: Schema.String,
  channel_name: Schema.String,
  team_name: Schema.NullOr(Schema.String),
  /** For direct and group messages, which belong to no team: a team of the recipient's for the link. */
  recipient_team: Schema.NullOr(Schema.String)
})
export type MailedPost = typeof MailedPost.Type

const Candidates = rows("EmailNotificationRepo candidates", EmailCandidate)
const WaitingUsers = rows("EmailNotificationRepo waiting users", WaitingUser)
const MailedPosts = rows("EmailNotificationRepo mailed posts", MailedPost)

export const makeEmailNotificationRepo = (db: DbService) => {
  const sql = db.sql
  return {
    /**
     * The channel's members this post may mail: those it mentions, and for a reply the thread's followers. Their
     * settings come along; the decision is made in code (EmailDecide.ts).
     */
    candidates: (input: { readonly channelId: string; readonly authorId: string; readonly rootId: string; readonly mentioned: ReadonlyArray<string> }) =>
      db.read(sql`
        SELECT u.id AS user_id, u.id = ANY(${input.mentioned}) AS mentioned,
               u.notify_props->>'email' AS user_email, u.notify_props->>'email_threads' AS email_threads,
               cm.notify_props->>'email' AS channel_email, cm.notify_props->>'mark_unread' AS mark_unread,
               COALESCE(s.status, 'offline') AS status, p.value AS email_interval
        FROM channel_members cm
        JOIN users u ON u.id = cm.user_id AND u.delete_at = 0 AND NOT u.is_bot
        LEFT JOIN statuses s ON s.user_id = u.id
        LEFT JOIN preferences p ON p.user_id = u.id AND p.category = 'notifications' AND p.name = 'email_interval'
        WHERE cm.channel_id = ${input.channelId} AND cm.user_id <> ${input.authorId}
          AND (cm.user_id = ANY(${input.mentioned})
            OR cm.user_id IN (SELECT user_id FROM thread_memberships WHERE post_id = ${input.rootId} AND following))`.pipe(Candidates)),

    enqueue: (userIds: ReadonlyArray<string>, postId: string, createAt: number) =>
      userIds.length === 0 ? Effect.void : db.execute(sql`
        INSERT INTO pending_email_notifications ${sql.insert(userIds.map((user_id) => ({ user_id, post_id: postId, create_at: createAt })))}
        ON CONFLICT DO NOTHING`).pipe(Effect.asVoid),

    /**
     * Every user with waiting notifications: when the first one came, their presence and their interval. All of them,
     * not a page: users waiting out a long interval must not hide those whose mail is due. The table holds only
     * recent notifications of people away, an hour's worth at most unless someone chose a longer interval.
     */
    waiting: () =>
      db.read(sql`
        SELECT w.user_id, w.first_at, COALESCE(s.status, 'offline') AS status, COALESCE(s.last_activity_at, 0) AS last_activity_at,
               p.value AS email_interval
        FROM (SELECT user_id, MIN(create_at) AS first_at FROM pending_email_notifications GROUP BY user_id) w
        LEFT JOIN statuses s ON s.user_id = w.user_id
        LEFT JOIN preferences p ON p.user_id = w.user_id AND p.category = 'notifications' AND p.name = 'email_interval'`.pipe(WaitingUsers)),

    /** Drops the notifications of users who have been active since (they have seen the posts) or want none. */
    discard: (userIds: ReadonlyArray<string>, upTo: number) =>
      userIds.length === 0
        ? Effect.void
        : db.execute(sql`DELETE FROM pending_email_notifications WHERE user_id = ANY(${userIds}) AND create_at <= ${upTo}`)
          .pipe(Effect.asVoid),

    /**
     * Claims these users' waiting notifications by deleting them, and answers what the mails show. A row deleted here
     * is deleted nowhere else, so each notification is mailed by one node only (SKIP LOCKED lets another node take
     * other users meanwhile). Posts deleted since, or in channels the user left, are dropped silently.
     */
    claim: (userIds: ReadonlyArray<string>) =>
      db.execute(sql`
        WITH due AS (
          SELECT user_id, post_id FROM pending_email_notifications WHERE user_id = ANY(${userIds}) FOR UPDATE SKIP LOCKED
        ), claimed AS (
          DELETE FROM pending_email_notifications n USING due WHERE n.user_id = due.user_id AND n.post_id = due.post_id
          RETURNING n.user_id, n.post_id
        )
        SELECT c.user_id, u.email, p.id AS post_id, p.create_at, p.message, a.username AS sender,
               ch.type AS channel_type, CASE WHEN ch.display_name <> '' THEN ch.display_name ELSE ch.name END AS channel_name,
               t.name AS team_name,
               (SELECT t2.name FROM team_members tm JOIN teams t2 ON t2.id = tm.team_id AND t2.delete_at = 0
                WHERE tm.user_id = c.user_id AND tm.delete_at = 0 ORDER BY t2.name LIMIT 1) AS recipient_team
        FROM claimed c
        JOIN users u ON u.id = c.user_id AND u.delete_at = 0
        JOIN posts p ON p.id = c.post_id AND p.delete_at = 0
        JOIN channels ch ON ch.id = p.channel_id AND ch.delete_at = 0
        JOIN channel_members cm ON cm.channel_id = ch.id AND cm.user_id = c.user_id
        JOIN users a ON a.id = p.user_id
        LEFT JOIN teams t ON t.id = ch.team_id
        ORDER BY c.user_id, p.create_at`.pipe(MailedPosts))
  }
}
