import { Effect, Schema } from "effect"
import type { DbService } from "../../layers/Db.ts"
import { Int8, rows } from "../../layers/Rows.ts"

/** SQL for post reminders. */

export const DueReminder = Schema.Struct({
  post_id: Schema.String,
  user_id: Schema.String,
  target_time: Int8,
  author_username: Schema.NullOr(Schema.String),
  user_roles: Schema.String
})
export type DueReminder = typeof DueReminder.Type
const DueReminders = rows("ReminderRepo due", DueReminder)

export const makeReminderRepo = (db: DbService) => {
  const sql = db.sql
  return {
    /** Setting a reminder again for the same post moves it. */
    upsert: (postId: string, userId: string, targetTime: number) =>
      db.execute(sql`
        INSERT INTO post_reminders (post_id, user_id, target_time) VALUES (${postId}, ${userId}, ${targetTime})
        ON CONFLICT (post_id, user_id) DO UPDATE SET target_time = EXCLUDED.target_time`),
    /**
     * Claims up to `limit` due reminders by deleting them: a row deleted here is deleted nowhere else, so each is sent
     * by one node only (SKIP LOCKED lets another node take the next ones meanwhile).
     */
    claimDue: (nowSeconds: number, limit: number) =>
      db.execute(sql`
        WITH due AS (
          SELECT post_id, user_id FROM post_reminders WHERE target_time <= ${nowSeconds}
          ORDER BY target_time LIMIT ${limit} FOR UPDATE SKIP LOCKED
        ), claimed AS (
          DELETE FROM post_reminders r USING due WHERE r.post_id = due.post_id AND r.user_id = due.user_id
          RETURNING r.post_id, r.user_id, r.target_time
        )
        SELECT c.post_id, c.user_id, c.target_time, a.username AS author_username, u.roles AS user_roles
        FROM claimed c JOIN users u ON u.id = c.user_id AND u.delete_at = 0
        LEFT JOIN posts p ON p.id = c.post_id
        LEFT JOIN users a ON a.id = p.user_id`.pipe(DueReminders)),
    /** Puts back a reminder whose message could not be sent, to try again later. */
    restore: (postId: string, userId: string, targetTime: number) =>
      db.execute(sql`
        INSERT INTO post_reminders (post_id, user_id, target_time) VALUES (${postId}, ${userId}, ${targetTime})
        ON CONFLICT DO NOTHING`).pipe(Effect.asVoid)
  }
}
