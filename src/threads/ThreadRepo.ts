import type { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { Context, Effect, Layer, Option, Schema } from "effect"
import { Db, type DbError } from "../../layers/Db.ts"
import { Int8, rows, StringList } from "../../layers/Rows.ts"

/**
 * Collapsed reply threads: the `threads` row of each root with replies (reply_count, last_reply_at, participants)
 * and one `thread_memberships` row per user who follows or has read a thread (last_viewed, unread_mentions).
 * Unread replies are counted from posts after last_viewed, so they never drift.
 */
export const MembershipRow = Schema.Struct({
  user_id: Schema.String,
  post_id: Schema.String,
  channel_id: Schema.String,
  team_id: Schema.String,
  reply_count: Int8,
  last_reply_at: Int8,
  participants: StringList,
  delete_at: Int8,
  following: Schema.Boolean,
  last_viewed: Int8,
  unread_mentions: Int8,
  unread_replies: Int8
})
export type MembershipRow = typeof MembershipRow.Type
const Memberships = rows("ThreadRepo memberships", MembershipRow)
const Totals = rows("ThreadRepo totals", Schema.Struct({ total: Int8, unread_threads: Int8, unread_mentions: Int8, unread_urgent_mentions: Int8 }))
const PostIds = rows("ThreadRepo post ids", Schema.Struct({ post_id: Schema.String }))
const ThreadChannels = rows("ThreadRepo thread channel", Schema.Struct({ channel_id: Schema.String, team_id: Schema.String, reply_count: Int8 }))
const CreateAts = rows("ThreadRepo create_at", Schema.Struct({ create_at: Int8 }))

export interface ListQuery {
  readonly userId: string
  readonly teamId: string
  readonly excludeDirect: boolean
  readonly deleted: boolean
  readonly unreadOnly: boolean
  readonly since: number
  readonly before?: string
  readonly after?: string
  readonly limit: number
}

export interface Totals {
  readonly total: number
  readonly total_unread_threads: number
  readonly total_unread_mentions: number
  readonly total_unread_urgent_mentions: number
}

export interface Follower {
  readonly userId: string
  /** Mentioned in this reply: follows again even after unfollowing, and gains an unread mention. */
  readonly mentioned: boolean
}

export interface ThreadRepoService {
  /**
   * Memberships of a thread with their unread counts: of the given users (users without one are absent), or of its
   * followers.
   */
  readonly memberships: (threadId: string, userIds: ReadonlyArray<string> | "followers") => Effect.Effect<ReadonlyArray<MembershipRow>, DbError>
  /** The user's followed threads of a team (and of DMs/GMs unless excluded), newest reply first. */
  readonly list: (query: ListQuery) => Effect.Effect<ReadonlyArray<MembershipRow>, DbError>
  readonly totals: (query: Pick<ListQuery, "userId" | "teamId" | "excludeDirect">) => Effect.Effect<Totals, DbError>
  /** Inside the reply's transaction: counters of the thread, the root's update_at, and the followers' memberships. */
  readonly recordReply: (reply: {
    readonly rootId: string
    readonly channelId: string
    readonly authorId: string
    readonly createAt: number
    readonly followers: ReadonlyArray<Follower>
  }) => Effect.Effect<void, SqlError>
  /** Inside a transaction: a reply was deleted. */
  readonly recordReplyDeleted: (rootId: string, count: number) => Effect.Effect<void, SqlError>
  readonly setFollowing: (threadId: string, userId: string, following: boolean, now: number) => Effect.Effect<void, DbError>
  /** Sets last_viewed and recounts the unread mentions after it for that user. */
  readonly setLastViewed: (threadId: string, userId: string, username: string, at: number, now: number) => Effect.Effect<void, DbError>
  /** Every followed thread of the team read up to `at`; the thread ids touched. */
  readonly markAllRead: (userId: string, teamId: string, at: number) => Effect.Effect<ReadonlyArray<string>, DbError>
  /** The thread row of a root, or nothing. */
  /** When a live post of the thread (its root or a reply) was created; None when it is not one. */
  readonly postCreateAt: (threadId: string, postId: string) => Effect.Effect<Option.Option<number>, DbError>
  readonly thread: (threadId: string) => Effect.Effect<{ readonly channel_id: string; readonly team_id: string; readonly reply_count: string | number } | undefined, DbError>
}

export class ThreadRepo extends Context.Tag("service/ThreadRepo")<ThreadRepo, ThreadRepoService>() {}

/** Posts after `after` in thread `root` by others that name the user, @channel, @all or @here. */
export const mentionCount = (sql: SqlClient.SqlClient, root: unknown, userId: unknown, username: string, after: unknown) => sql`(
  SELECT count(*) FROM posts r
  WHERE r.root_id = ${root} AND r.root_id <> '' AND r.delete_at = 0 AND r.create_at > ${after} AND r.user_id <> ${userId}
    AND r.message ~* ${mentionPattern(username)})`

/** A case-insensitive POSIX pattern matching a mention of the user or of the whole channel. */
export const mentionPattern = (username: string) =>
  `(^|[^[:alnum:]_@.-])@(${username.replace(/[.\-]/g, (c) => `\\${c}`)}|channel|all|here)([^[:alnum:]_-]|[._-]([^[:alnum:]_-]|$)|$)`

export const make = Effect.gen(function*() {
  const db = yield* Db
  const sql = db.sql

  const membershipColumns = sql`
    tm.user_id, t.post_id, t.channel_id, c.team_id, t.reply_count, t.last_reply_at, t.participants, t.delete_at,
    tm.following, tm.last_viewed, tm.unread_mentions,
    (SELECT count(*) FROM posts r
     WHERE r.root_id = t.post_id AND r.root_id <> '' AND r.delete_at = 0 AND r.create_at > tm.last_viewed) AS unread_replies`

  const teamScope = (teamId: string, excludeDirect: boolean) =>
    excludeDirect ? sql`c.team_id = ${teamId}` : sql`(c.team_id = ${teamId} OR c.team_id = '')`

  const service: ThreadRepoService = {
    memberships: (threadId, userIds) =>
      userIds !== "followers" && userIds.length === 0
        ? Effect.succeed([])
        : db.read(sql`
            SELECT ${membershipColumns}
            FROM thread_memberships tm
            JOIN threads t ON t.post_id = tm.post_id
            JOIN channels c ON c.id = t.channel_id
            WHERE tm.post_id = ${threadId}
              AND ${userIds === "followers" ? sql`tm.following` : sql`tm.user_id = ANY(${[...userIds]})`}`.pipe(Memberships)),

    list: (q) => {
      const filters = [sql`tm.user_id = ${q.userId}`, sql`tm.following`, teamScope(q.teamId, q.excludeDirect)]
      if (!q.deleted) filters.push(sql`t.delete_at = 0`)
      if (q.unreadOnly) filters.push(sql`(t.last_reply_at > tm.last_viewed OR tm.unread_mentions > 0)`)
      if (q.since > 0) {
        filters.push(sql`(t.last_reply_at >= ${q.since} OR tm.last_updated >= ${q.since} OR t.delete_at >= ${q.since})`)
      }
      const anchor = (id: string) => sql`((SELECT last_reply_at FROM threads WHERE post_id = ${id}), ${id})`
      if (q.before !== undefined) filters.push(sql`(t.last_reply_at, t.post_id) < ${anchor(q.before)}`)
      if (q.after !== undefined) filters.push(sql`(t.last_reply_at, t.post_id) > ${anchor(q.after)}`)
      const order = q.after !== undefined ? sql`t.last_reply_at ASC, t.post_id ASC` : sql`t.last_reply_at DESC, t.post_id DESC`
      return Effect.map(
        db.read(sql`
          SELECT ${membershipColumns}
          FROM thread_memberships tm
          JOIN threads t ON t.post_id = tm.post_id
          JOIN channels c ON c.id = t.channel_id
          WHERE ${sql.and(filters)}
          ORDER BY ${order} LIMIT ${q.limit}`.pipe(Memberships)),
        (rows) => q.after !== undefined ? [...rows].reverse() : rows
      )
    },

    totals: (q) =>
      Effect.map(
        db.read(sql`
          SELECT count(*) AS total,
                 count(*) FILTER (WHERE t.last_reply_at > tm.last_viewed) AS unread_threads,
                 COALESCE(sum(tm.unread_mentions), 0) AS unread_mentions,
                 COALESCE(sum(tm.unread_mentions) FILTER (WHERE pp.priority = 'urgent'), 0) AS unread_urgent_mentions
          FROM thread_memberships tm
          JOIN threads t ON t.post_id = tm.post_id
          JOIN channels c ON c.id = t.channel_id
          LEFT JOIN post_priority pp ON pp.post_id = t.post_id
          WHERE tm.user_id = ${q.userId} AND tm.following AND t.delete_at = 0 AND ${teamScope(q.teamId, q.excludeDirect)}`.pipe(Totals)),
        ([row]) => ({
          total: Number(row?.total ?? 0),
          total_unread_threads: Number(row?.unread_threads ?? 0),
          total_unread_mentions: Number(row?.unread_mentions ?? 0),
          total_unread_urgent_mentions: Number(row?.unread_urgent_mentions ?? 0)
        })
      ),

    recordReply: (reply) =>
      Effect.gen(function*() {
        // has_thread: post lists look a root's thread up only where it is set (migrations/0330).
        yield* sql`UPDATE posts SET update_at = ${reply.createAt}, has_thread = true WHERE id = ${reply.rootId}`
        yield* sql`
          INSERT INTO threads (post_id, channel_id, reply_count, last_reply_at, participants)
          VALUES (${reply.rootId}, ${reply.channelId}, 1, ${reply.createAt}, jsonb_build_array(${reply.authorId}::text))
          ON CONFLICT (post_id) DO UPDATE SET
            reply_count = threads.reply_count + 1,
            last_reply_at = EXCLUDED.last_reply_at,
            participants = CASE WHEN threads.participants ? ${reply.authorId}::text THEN threads.participants
                                ELSE threads.participants || jsonb_build_array(${reply.authorId}::text) END`
        if (reply.followers.length === 0) return
        // An explicit unfollow sticks unless the user is mentioned again. The author has read the thread up to their
        // own reply, as Mattermost marks it: it is never unread for them, and earlier mentions of them are read too.
        yield* sql`
          INSERT INTO thread_memberships (post_id, user_id, following, last_viewed, last_updated, unread_mentions)
          SELECT ${reply.rootId}, f.user_id, true,
                 CASE WHEN f.user_id = ${reply.authorId} THEN ${reply.createAt}::bigint ELSE 0 END,
                 ${reply.createAt}::bigint, CASE WHEN f.mentioned THEN 1 ELSE 0 END
          FROM unnest(${reply.followers.map((f) => f.userId)}::text[], ${reply.followers.map((f) => f.mentioned)}::boolean[])
               AS f(user_id, mentioned)
          ON CONFLICT (post_id, user_id) DO UPDATE SET
            following = thread_memberships.following OR EXCLUDED.unread_mentions > 0,
            last_viewed = GREATEST(thread_memberships.last_viewed, EXCLUDED.last_viewed),
            last_updated = EXCLUDED.last_updated,
            unread_mentions = CASE WHEN EXCLUDED.user_id = ${reply.authorId} THEN 0
                                   ELSE thread_memberships.unread_mentions + EXCLUDED.unread_mentions END`
      }),

    recordReplyDeleted: (rootId, count) =>
      Effect.asVoid(sql`
        UPDATE threads SET reply_count = GREATEST(reply_count - ${count}, 0),
          last_reply_at = COALESCE((SELECT max(create_at) FROM posts WHERE root_id = ${rootId} AND root_id <> '' AND delete_at = 0), 0)
        WHERE post_id = ${rootId}`),

    setFollowing: (threadId, userId, following, now) =>
      Effect.asVoid(db.execute(sql`
        INSERT INTO thread_memberships (post_id, user_id, following, last_viewed, last_updated, unread_mentions)
        VALUES (${threadId}, ${userId}, ${following}, 0, ${now}, 0)
        ON CONFLICT (post_id, user_id) DO UPDATE SET following = EXCLUDED.following, last_updated = EXCLUDED.last_updated`)),

    setLastViewed: (threadId, userId, username, at, now) =>
      Effect.asVoid(db.execute(sql`
        INSERT INTO thread_memberships (post_id, user_id, following, last_viewed, last_updated, unread_mentions)
        VALUES (${threadId}, ${userId}, false, ${at}, ${now}, ${mentionCount(sql, threadId, userId, username, at)})
        ON CONFLICT (post_id, user_id) DO UPDATE SET
          last_viewed = EXCLUDED.last_viewed, last_updated = EXCLUDED.last_updated, unread_mentions = EXCLUDED.unread_mentions`)),

    markAllRead: (userId, teamId, at) =>
      Effect.map(
        db.execute(sql`
          UPDATE thread_memberships tm SET last_viewed = ${at}, last_updated = ${at}, unread_mentions = 0
          FROM threads t JOIN channels c ON c.id = t.channel_id
          WHERE tm.post_id = t.post_id AND tm.user_id = ${userId} AND tm.following AND ${teamScope(teamId, false)}
          RETURNING tm.post_id`.pipe(PostIds)),
        (rows) => rows.map((r) => r.post_id)
      ),

    thread: (threadId) =>
      Effect.map(
        db.read(sql`
          SELECT t.channel_id, c.team_id, t.reply_count FROM threads t JOIN channels c ON c.id = t.channel_id
          WHERE t.post_id = ${threadId}`.pipe(ThreadChannels)),
        (rows) => rows[0]
      ),

    postCreateAt: (threadId, postId) =>
      Effect.map(
        db.read(sql`
          SELECT create_at FROM posts
          WHERE id = ${postId} AND delete_at = 0 AND (id = ${threadId} OR root_id = ${threadId})`.pipe(CreateAts)),
        (rows) => Option.map(Option.fromNullable(rows[0]), (r) => Number(r.create_at))
      )
  }
  return service
})

export const layer = Layer.effect(ThreadRepo, make)
