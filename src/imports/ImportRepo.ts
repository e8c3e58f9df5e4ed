import type { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { rows } from "../../layers/Rows.ts"
import * as Sidebar from "../categories/Sidebar.ts"
import { DEFAULT_CHANNEL_NOTIFY_PROPS } from "../channels/ChannelWire.ts"
import { anyText } from "../../layers/SqlArrays.ts"

const Inserted = rows("ImportRepo channel members", Schema.Struct({ channel_id: Schema.String, user_id: Schema.String }))
const PostIds = rows("ImportRepo reactions", Schema.Struct({ post_id: Schema.String }))

/**
 * The import's statements, run inside the batch's transaction (Importer.ts). Every insert finds what is already
 * there first or lets a unique index refuse it, so a second run of the same file creates nothing: teams by name,
 * channels by team and name, users by username or email, posts by channel, author, create_at (and root), reactions by
 * their key, preferences by theirs.
 */

export interface MemberInput {
  readonly channelId: string
  readonly teamId: string
  readonly type: string
  readonly userId: string
  readonly admin: boolean
  readonly guest: boolean
  readonly notifyProps: Record<string, string>
  readonly mentionCount: number
  readonly mentionCountRoot: number
  readonly urgentMentionCount: number
  readonly msgCount: number | undefined
  readonly msgCountRoot: number | undefined
  readonly lastViewedAt: number | undefined
}

/**
 * Channel members; returns those newly added (existing memberships are left as they are). Without message counts a
 * member is marked PENDING, to be settled by settleReadState once the posts are in.
 */
export const addChannelMembers = (sql: SqlClient.SqlClient, members: ReadonlyArray<MemberInput>, now: number) =>
  Effect.gen(function*() {
    if (members.length === 0) return [] as ReadonlyArray<MemberInput>
    const inserted = yield* sql`
      WITH added AS (
      INSERT INTO channel_members (channel_id, user_id, scheme_admin, scheme_guest, scheme_user, notify_props, last_update_at,
                                   mention_count, mention_count_root, urgent_mention_count, msg_count, msg_count_root, last_viewed_at)
      SELECT e.channel_id, e.user_id, e.admin, e.guest, NOT e.guest, e.notify::jsonb, ${now}, e.mc, e.mcr, e.umc, e.msg, e.msgr, e.lv
      FROM unnest(${members.map((m) => m.channelId)}::text[], ${members.map((m) => m.userId)}::text[],
                  ${members.map((m) => m.admin)}::boolean[], ${members.map((m) => m.guest)}::boolean[],
                  ${members.map((m) => JSON.stringify({ ...DEFAULT_CHANNEL_NOTIFY_PROPS, ...m.notifyProps }))}::text[],
                  ${members.map((m) => m.mentionCount)}::bigint[], ${members.map((m) => m.mentionCountRoot)}::bigint[],
                  ${members.map((m) => m.urgentMentionCount)}::bigint[], ${members.map((m) => m.msgCount ?? PENDING)}::bigint[],
                  ${members.map((m) => m.msgCount === undefined ? PENDING : m.msgCountRoot ?? m.msgCount)}::bigint[],
                  ${members.map((m) => m.lastViewedAt ?? (m.msgCount === undefined ? PENDING : 0))}::bigint[])
           AS e(channel_id, user_id, admin, guest, notify, mc, mcr, umc, msg, msgr, lv)
      ON CONFLICT DO NOTHING
      RETURNING channel_id, user_id, msg_count
      ), pending AS (
        INSERT INTO channel_member_import_pending (channel_id, user_id)
        SELECT channel_id, user_id FROM added WHERE msg_count < 0
        ON CONFLICT DO NOTHING
      )
      SELECT channel_id, user_id FROM added`.pipe(Inserted)
    const added = new Set(inserted.map((r) => `${r.channel_id}/${r.user_id}`))
    const fresh = members.filter((m) => added.has(`${m.channelId}/${m.userId}`))
    yield* Sidebar.place(sql, fresh.map((m) => ({ userId: m.userId, channelId: m.channelId, teamId: m.teamId, type: m.type })), now)
    return fresh
  })

export interface Preference {
  readonly userId: string
  readonly category: string
  readonly name: string
  readonly value: string
}

/** Preferences the user does not have yet (a re-import never overwrites a choice made since). */
export const addPreferences = (sql: SqlClient.SqlClient, prefs: ReadonlyArray<Preference>) =>
  prefs.length === 0
    ? Effect.void
    : Effect.asVoid(sql`
        INSERT INTO preferences (user_id, category, name, value)
        SELECT * FROM unnest(${prefs.map((p) => p.userId)}::text[], ${prefs.map((p) => p.category)}::text[],
                             ${prefs.map((p) => p.name)}::text[], ${prefs.map((p) => p.value)}::text[])
        ON CONFLICT DO NOTHING`)

/** Files favourites into the user's Favorites category of the team (creating the default categories first). */
export const favorite = (sql: SqlClient.SqlClient, userId: string, teamId: string, channelId: string, now: number) =>
  Effect.gen(function*() {
    yield* Sidebar.ensure(sql, userId, teamId, now)
    yield* sql`
      UPDATE sidebar_channels SET category_id = ${Sidebar.defaultCategoryId("favorites", userId, teamId)}
      WHERE user_id = ${userId} AND channel_id = ${channelId}
        AND category_id IN (SELECT id FROM sidebar_categories WHERE user_id = ${userId} AND team_id = ${teamId})`
  })

export interface ReactionInput {
  readonly postId: string
  readonly channelId: string
  readonly userId: string
  readonly emojiName: string
  readonly createAt: number
}

export const addReactions = (sql: SqlClient.SqlClient, reactions: ReadonlyArray<ReactionInput>) =>
  Effect.gen(function*() {
    if (reactions.length === 0) return 0
    const inserted = yield* sql`
      INSERT INTO reactions (post_id, user_id, emoji_name, channel_id, create_at, update_at)
      SELECT e.post_id, e.user_id, e.emoji_name, e.channel_id, e.create_at, e.create_at
      FROM unnest(${reactions.map((r) => r.postId)}::text[], ${reactions.map((r) => r.userId)}::text[],
                  ${reactions.map((r) => r.emojiName)}::text[], ${reactions.map((r) => r.channelId)}::text[],
                  ${reactions.map((r) => r.createAt)}::bigint[]) AS e(post_id, user_id, emoji_name, channel_id, create_at)
      ON CONFLICT DO NOTHING
      RETURNING post_id`.pipe(PostIds)
    const posts = [...new Set(inserted.map((r) => r.post_id))]
    if (posts.length > 0) yield* sql`UPDATE posts SET has_reactions = true WHERE id = ${anyText(sql, posts)}`
    return inserted.length
  })

export interface Follower {
  readonly rootId: string
  readonly userId: string
  readonly lastViewed: number
  readonly unreadMentions: number
}

/**
 * The threads of roots that got replies: counts, last reply and participants from the replies themselves (so they
 * are right however many runs added them), the root's update_at moved to its last reply as a live reply does, and
 * memberships: the root's author and every replier follow and have read the imported history unless the file says
 * otherwise (thread_followers with last_viewed and unread_mentions).
 */
export const refreshThreads = (sql: SqlClient.SqlClient, rootIds: ReadonlyArray<string>, followers: ReadonlyArray<Follower>) =>
  Effect.gen(function*() {
    if (rootIds.length === 0) return
    // Replies are reached through posts_root_create_idx, which is partial (root_id <> ''): the planner uses it only
    // when the statement itself says root_id <> ''. Without it (a correlated subquery per root, or a generic plan of
    // a prepared statement) each root cost a sequential scan of posts, so a batch grew with the table and a
    // 100,000-message import slowed from hundreds of lines a second to ten and then hit the statement timeout
    // (issue 30). One array parameter keeps a single prepared statement whatever the number of roots.
    const roots = [...rootIds]
    yield* sql`
      INSERT INTO threads (post_id, channel_id, reply_count, last_reply_at, participants)
      SELECT a.root_id, min(a.channel_id), sum(a.n)::bigint, max(a.last), jsonb_agg(a.user_id ORDER BY a.first, a.user_id)
      FROM (SELECT root_id, user_id, min(channel_id) AS channel_id, count(*) AS n, max(create_at) AS last, min(create_at) AS first
            FROM posts WHERE root_id = ANY(${roots}::text[]) AND root_id <> '' AND delete_at = 0
            GROUP BY root_id, user_id) a
      GROUP BY a.root_id
      ON CONFLICT (post_id) DO UPDATE SET
        reply_count = EXCLUDED.reply_count, last_reply_at = EXCLUDED.last_reply_at, participants = EXCLUDED.participants`
    yield* sql`
      UPDATE posts p SET update_at = GREATEST(p.update_at, t.last_reply_at), has_thread = true
      FROM threads t WHERE t.post_id = p.id AND p.id = ANY(${roots}::text[]) AND t.post_id = ANY(${roots}::text[])`
    yield* sql`
      INSERT INTO thread_memberships (post_id, user_id, following, last_viewed, last_updated, unread_mentions)
      SELECT DISTINCT ON (m.post_id, m.user_id) m.post_id, m.user_id, true, t.last_reply_at, t.last_reply_at, 0
      FROM (SELECT id AS post_id, user_id FROM posts WHERE id = ANY(${roots}::text[])
            UNION SELECT root_id, user_id FROM posts WHERE root_id = ANY(${roots}::text[]) AND root_id <> '' AND delete_at = 0) m
      JOIN threads t ON t.post_id = m.post_id
      -- The roots said again of threads, here and above, so that it is read by its key rather than whole into a hash.
      WHERE t.post_id = ANY(${roots}::text[])
      ON CONFLICT DO NOTHING`
    if (followers.length === 0) return
    yield* sql`
      INSERT INTO thread_memberships (post_id, user_id, following, last_viewed, last_updated, unread_mentions)
      SELECT f.post_id, f.user_id, true, f.last_viewed, t.last_reply_at, f.unread
      FROM unnest(${followers.map((f) => f.rootId)}::text[], ${followers.map((f) => f.userId)}::text[],
                  ${followers.map((f) => f.lastViewed)}::bigint[], ${followers.map((f) => f.unreadMentions)}::bigint[])
           AS f(post_id, user_id, last_viewed, unread)
      JOIN threads t ON t.post_id = f.post_id
      ON CONFLICT (post_id, user_id) DO UPDATE SET following = true, last_viewed = EXCLUDED.last_viewed,
        unread_mentions = EXCLUDED.unread_mentions`
  })

/** Channel counters from the posts themselves (total and root message counts, last post times). */
export const refreshChannels = (sql: SqlClient.SqlClient, channelIds: ReadonlyArray<string>) =>
  channelIds.length === 0
    ? Effect.void
    : Effect.asVoid(sql`
        UPDATE channels c SET
          total_msg_count = s.n, total_msg_count_root = s.roots,
          last_post_at = GREATEST(c.last_post_at, s.last), last_root_post_at = GREATEST(c.last_root_post_at, s.last_root)
        FROM (SELECT channel_id, count(*) AS n, count(*) FILTER (WHERE root_id = '') AS roots, max(create_at) AS last,
                     COALESCE(max(create_at) FILTER (WHERE root_id = ''), 0) AS last_root
              FROM posts WHERE channel_id = ${anyText(sql, channelIds)} AND delete_at = 0 GROUP BY channel_id) s
        WHERE c.id = s.channel_id`)

/** The tables an import fills, whose planner statistics it refreshes as it goes (analyzeImported). */
const IMPORTED_TABLES = [
  "posts", "threads", "thread_memberships", "reactions", "file_infos", "preferences", "channel_members",
  "channel_member_import_pending", "sidebar_channels", "channels", "users", "team_members"
]

/**
 * ANALYZE of the tables the import fills. An import often starts on tables that were empty when last analyzed (after
 * the migrations) and autovacuum may be off, so the planner would keep estimating from an empty table: with those
 * estimates the batch's lookup of posts already there (Writer.flushPosts) became a hash join over every root post
 * instead of an index lookup per post, a cost that grew with the table (issue 30). ANALYZE samples a bounded number
 * of rows, so it takes about the same time at any size; the statement timeout is lifted for it as for migrations
 * (layers/Migrations.ts), since on a cold cache a large table's sample may take longer than a request may. Run in a
 * transaction of its own (SET LOCAL).
 */
export const analyzeImported = (sql: SqlClient.SqlClient) =>
  Effect.asVoid(sql.unsafe(`SET LOCAL statement_timeout = 0;\nANALYZE ${IMPORTED_TABLES.join(", ")}`))

/** Marks of a member whose read state is derived after the import (migration 0136). */
export const PENDING = -1

/**
 * Members the file gave no message counts (msg_count PENDING): their counts become what they had read, by
 * last_viewed_at, or the whole imported history when that is PENDING too (a migrated team should not open on
 * thousands of unread messages). A thousand at a time, until none is left.
 */
export const settleReadState = (sql: SqlClient.SqlClient) =>
  Effect.gen(function*() {
    while (true) {
      // A thousand listed members at a time; the list shrinks by each batch whatever their rows hold.
      const settled = yield* sql`
        WITH batch AS (
          DELETE FROM channel_member_import_pending WHERE (channel_id, user_id) IN (
            SELECT channel_id, user_id FROM channel_member_import_pending LIMIT 1000)
          RETURNING channel_id, user_id
        ), settled AS (
        UPDATE channel_members cm SET
          last_viewed_at = CASE WHEN cm.last_viewed_at = ${PENDING} THEN c.last_post_at ELSE cm.last_viewed_at END,
          msg_count = CASE WHEN cm.last_viewed_at = ${PENDING} THEN c.total_msg_count
            ELSE (SELECT count(*) FROM posts p WHERE p.channel_id = cm.channel_id AND p.delete_at = 0 AND p.create_at <= cm.last_viewed_at) END,
          msg_count_root = CASE WHEN cm.last_viewed_at = ${PENDING} THEN c.total_msg_count_root
            ELSE (SELECT count(*) FROM posts p WHERE p.channel_id = cm.channel_id AND p.delete_at = 0 AND p.root_id = ''
                  AND p.create_at <= cm.last_viewed_at) END
        FROM channels c, batch b
        WHERE c.id = cm.channel_id AND cm.channel_id = b.channel_id AND cm.user_id = b.user_id AND cm.msg_count < 0
        RETURNING cm.user_id
        )
        SELECT user_id FROM batch`
      if (settled.length === 0) return
    }
  })
