import type { Statement } from "@effect/sql"
import { Context, Effect, Layer, Option } from "effect"
import { Db, type DbError } from "../../layers/Db.ts"
import { type PostJson, type PostRow, toWire, type WireOptions } from "./PostWire.ts"

/**
 * Reading posts. Every list is two statements whatever its size: one picks the ids (an index walk), one hydrates
 * them with thread counters, the viewer's thread membership and all metadata (reactions, their custom emojis, file
 * infos, acknowledgements) aggregated per post in SQL, so a page never costs a query per post or per metadata kind.
 */
export interface HydrateOptions extends WireOptions {
  /** Also hydrate the root post of every reply in the list (web and mobile render "commented on"). */
  readonly withRoots?: boolean
  /**
   * Also hydrate every undeleted post of the threads the list touches (Mattermost's fetchThreads: a client without
   * collapsed threads shows replies under their roots); still the same one query.
   */
  readonly withThreads?: boolean
}

/** A thread cursor: the post id (its time is looked up when not given), or a time alone. */
export interface Cursor {
  readonly createAt?: number
  readonly id?: string
}

export interface WindowQuery {
  readonly channelId: string
  readonly rootsOnly: boolean
  readonly includeDeleted: boolean
  /** Older: newest first, before the anchor. Newer: oldest first, after the anchor. */
  readonly direction: "older" | "newer"
  /** A post of the channel the window starts after (exclusive)... */
  readonly anchor?: string
  /** ...or a time: older takes posts at or before it, newer posts after it. */
  readonly anchorTime?: number
  readonly offset: number
  readonly limit: number
}

export interface ThreadQuery {
  readonly rootId: string
  readonly direction: "up" | "down"
  readonly from?: Cursor
  /** Replies updated at or after this time, deleted ones included (updatesOnly). */
  readonly updatedSince?: number
  readonly limit?: number
}

export interface PostRepoService {
  /** Hydrated posts in the order of `ids` (unknown ids skipped), plus the roots of replies when asked. */
  readonly hydrate: (ids: ReadonlyArray<string>, options: HydrateOptions) => Effect.Effect<ReadonlyArray<PostJson>, DbError>
  readonly channelWindow: (query: WindowQuery) => Effect.Effect<ReadonlyArray<string>, DbError>
  /** `channelWindow` as an expression (an array of the ids, in order), for a statement that reads more. */
  readonly channelWindowArray: (query: WindowQuery) => Statement.Fragment
  /** Posts of the channel created, edited or deleted at or after `since`, newest first. */
  readonly channelSince: (channelId: string, since: number, rootsOnly: boolean) => Effect.Effect<ReadonlyArray<string>, DbError>
  /** Reply ids of a thread in the asked direction (down: oldest first; up: newest first). */
  readonly threadReplies: (query: ThreadQuery) => Effect.Effect<ReadonlyArray<string>, DbError>
  readonly pinned: (channelId: string) => Effect.Effect<ReadonlyArray<string>, DbError>
  /** The user's saved posts (flagged_post preferences) in channels they belong to, newest first. */
  readonly flagged: (query: {
    readonly userId: string
    readonly channelId?: string
    readonly teamId?: string
    readonly offset: number
    readonly limit: number
  }) => Effect.Effect<ReadonlyArray<string>, DbError>
  /** The root of a post's thread: the post itself when it is a root; None for an unknown post. */
  readonly threadRoot: (postId: string) => Effect.Effect<Option.Option<string>, DbError>
  /** When the user last viewed the channel; None when they are not a member. */
  readonly lastViewedAt: (channelId: string, userId: string) => Effect.Effect<Option.Option<number>, DbError>
  /** Of the given posts, those the caller may read (not deleted), in no particular order. */
  readonly readable: (ids: ReadonlyArray<string>, caller: { readonly userId: string; readonly isSystemAdmin: boolean }) => Effect.Effect<ReadonlyArray<string>, DbError>
}

export class PostRepo extends Context.Tag("service/PostRepo")<PostRepo, PostRepoService>() {}

export const make = Effect.gen(function*() {
  const db = yield* Db
  const sql = db.sql

  // One primary-key lookup per participant (a scalar subquery): joined to the unnested list instead, the planner
  // guesses 100 participants per thread and hashes the whole users table.
  const participantUsers = sql`(
    SELECT COALESCE(json_agg(pu.u ORDER BY pu.n), '[]')
    FROM (SELECT pa.n, (SELECT to_jsonb(u) - 'password' FROM users u WHERE u.id = pa.uid) AS u
          FROM jsonb_array_elements_text(t.participants) WITH ORDINALITY AS pa(uid, n)) pu
    WHERE pu.u IS NOT NULL)`

  // `wanted` (a WITH clause naming the post ids) drives the statement; each post's metadata is a correlated lookup by
  // key. Those on partial indexes spell the index's predicate out (`f.post_id <> ''` for file_infos_post_idx): the
  // planner cannot infer it from `f.post_id = p.id` and would read the whole table for every post.
  const hydrateRows = (wanted: Statement.Fragment, viewerId: string, extended: boolean) =>
    db.read(sql<PostRow>`
      ${wanted}
      SELECT p.id, p.create_at, p.update_at, p.edit_at, p.delete_at, p.is_pinned, p.user_id, p.channel_id, p.root_id,
             p.original_id, p.message, p.type, p.props, p.hashtags, p.file_ids, p.pending_post_id, p.has_reactions,
             COALESCE(t.reply_count, 0) AS reply_count, t.last_reply_at, t.participants, tm.following AS is_following,
             COALESCE((
               SELECT json_agg(json_build_object(
                        'user_id', r.user_id, 'post_id', r.post_id, 'emoji_name', r.emoji_name, 'create_at', r.create_at,
                        'update_at', r.update_at, 'delete_at', r.delete_at, 'remote_id', '', 'channel_id', r.channel_id)
                      ORDER BY r.create_at, r.user_id, r.emoji_name)
               FROM reactions r WHERE r.post_id = p.id AND r.delete_at = 0), '[]') AS reactions,
             COALESCE((
               SELECT json_agg(json_build_object(
                        'id', e.id, 'create_at', e.create_at, 'update_at', e.update_at, 'delete_at', e.delete_at,
                        'creator_id', e.creator_id, 'name', e.name) ORDER BY e.name)
               FROM emoji e
               WHERE e.delete_at = 0
                 AND e.name IN (SELECT r.emoji_name FROM reactions r WHERE r.post_id = p.id AND r.delete_at = 0)), '[]') AS emojis,
             COALESCE((
               SELECT json_agg(json_strip_nulls(json_build_object(
                        'id', f.id, 'user_id', f.creator_id, 'post_id', f.post_id, 'channel_id', f.channel_id,
                        'create_at', f.create_at, 'update_at', f.update_at, 'delete_at', f.delete_at, 'name', f.name,
                        'extension', f.extension, 'size', f.size, 'mime_type', f.mime_type, 'width', f.width,
                        'height', f.height, 'has_preview_image', f.has_preview_image,
                        'mini_preview', translate(encode(f.mini_preview, 'base64'), chr(10), ''), 'archived', false))
                      ORDER BY f.create_at, f.id)
               FROM file_infos f WHERE f.post_id = p.id AND f.post_id <> '' AND f.delete_at = 0), '[]') AS files,
             COALESCE((
               SELECT json_agg(json_build_object('user_id', a.user_id, 'post_id', a.post_id, 'acknowledged_at', a.acknowledged_at)
                      ORDER BY a.acknowledged_at, a.user_id)
               FROM post_acknowledgements a WHERE a.post_id = p.id), '[]') AS acknowledgements,
             (SELECT json_build_object('priority', pp.priority, 'requested_ack', pp.requested_ack,
                                       'persistent_notifications', pp.persistent_notifications)
              FROM post_priority pp WHERE pp.post_id = p.id) AS priority,
             ${extended ? participantUsers : sql`NULL`} AS participant_users
      FROM wanted w
      JOIN posts p ON p.id = w.id
      LEFT JOIN threads t ON t.post_id = CASE WHEN p.root_id = '' THEN p.id ELSE p.root_id END
      LEFT JOIN thread_memberships tm ON tm.post_id = t.post_id AND tm.user_id = ${viewerId}`)

  const ids = (rows: ReadonlyArray<{ readonly id: string }>) => rows.map((r) => r.id)

  const windowSelect = (q: WindowQuery) => {
    const filters = [
      sql`channel_id = ${q.channelId}`,
      ...(q.includeDeleted ? [] : [sql`delete_at = 0`]),
      ...(q.rootsOnly ? [sql`root_id = ''`] : [])
    ]
    const anchor = q.anchor !== undefined
      ? [q.direction === "older"
        ? sql`(create_at, id) < ((SELECT create_at FROM posts WHERE id = ${q.anchor} AND channel_id = ${q.channelId}), ${q.anchor})`
        : sql`(create_at, id) > ((SELECT create_at FROM posts WHERE id = ${q.anchor} AND channel_id = ${q.channelId}), ${q.anchor})`]
      : q.anchorTime !== undefined
      ? [q.direction === "older" ? sql`create_at <= ${q.anchorTime}` : sql`create_at > ${q.anchorTime}`]
      : []
    const order = q.direction === "older" ? sql`create_at DESC, id DESC` : sql`create_at ASC, id ASC`
    return sql`
      SELECT id FROM posts WHERE ${sql.and([...filters, ...anchor])}
      ORDER BY ${order} OFFSET ${q.offset} LIMIT ${q.limit}`
  }

  const service: PostRepoService = {
    hydrate: (postIds, options) =>
      Effect.gen(function*() {
        if (postIds.length === 0) return [] as ReadonlyArray<PostJson>
        const list = [...postIds]
        // The posts wanted, as a union of index lookups bounded by the page: the listed ids (primary key), the roots
        // of listed replies (primary key) and the undeleted replies of the threads they touch (posts_root_create_idx;
        // `root_id <> ''` is spelt out so that a generic plan can use that partial index). Written as one WHERE with
        // ORs instead, PostgreSQL cannot use any index and reads the whole posts table.
        const roots = options.withRoots ? sql`UNION SELECT root_id FROM listed WHERE root_id <> ''` : sql``
        const threads = options.withThreads
          ? sql`UNION SELECT r.id FROM posts r
                WHERE r.root_id <> '' AND r.delete_at = 0
                  AND r.root_id IN (SELECT CASE WHEN root_id = '' THEN id ELSE root_id END FROM listed)`
          : sql``
        const wanted = sql`
          WITH listed AS MATERIALIZED (SELECT id, root_id FROM posts WHERE id = ANY(${list})),
          wanted AS (SELECT id FROM listed ${roots} ${threads})`
        const rows = yield* hydrateRows(wanted, options.viewer.userId, options.extended)
        const byId = new Map(rows.map((row) => [row.id, toWire(row, options)]))
        const listed = new Set(list)
        const ordered: Array<PostJson> = []
        for (const id of list) {
          const post = byId.get(id)
          if (post !== undefined) ordered.push(post)
        }
        for (const row of rows) if (!listed.has(row.id)) ordered.push(byId.get(row.id)!)
        return ordered as ReadonlyArray<PostJson>
      }),

    channelWindow: (q) => Effect.map(db.read(sql<{ id: string }>`${windowSelect(q)}`), ids),
    channelWindowArray: (q) => sql`ARRAY(${windowSelect(q)})`,

    channelSince: (channelId, since, rootsOnly) =>
      Effect.map(
        db.read(sql<{ id: string }>`
          SELECT id FROM posts
          WHERE channel_id = ${channelId} AND update_at >= ${since} ${rootsOnly ? sql`AND root_id = ''` : sql``}
          ORDER BY create_at DESC, id DESC LIMIT 1000`),
        ids
      ),

    threadReplies: (q) => {
      // `root_id <> ''` lets a generic plan of this prepared statement use the partial index posts_root_create_idx.
      const filters = [sql`root_id = ${q.rootId}`, sql`root_id <> ''`]
      if (q.updatedSince !== undefined) filters.push(sql`update_at >= ${q.updatedSince}`)
      else filters.push(sql`delete_at = 0`)
      if (q.from !== undefined && (q.from.createAt !== undefined || q.from.id !== undefined)) {
        // Without a post id the time alone bounds the page, exclusive: a sentinel id sorts after (down) or before (up)
        // every real id.
        const id = q.from.id ?? (q.direction === "down" ? "z".repeat(27) : "")
        const at = q.from.createAt ?? sql`(SELECT create_at FROM posts WHERE id = ${id})`
        filters.push(q.direction === "down" ? sql`(create_at, id) > (${at}, ${id})` : sql`(create_at, id) < (${at}, ${id})`)
      }
      const order = q.direction === "down" ? sql`create_at ASC, id ASC` : sql`create_at DESC, id DESC`
      return Effect.map(
        db.read(sql<{ id: string }>`
          SELECT id FROM posts WHERE ${sql.and(filters)} ORDER BY ${order}
          ${q.limit === undefined ? sql`` : sql`LIMIT ${q.limit}`}`),
        ids
      )
    },

    pinned: (channelId) =>
      Effect.map(
        db.read(sql<{ id: string }>`
          SELECT id FROM posts WHERE channel_id = ${channelId} AND is_pinned AND delete_at = 0
          ORDER BY create_at DESC, id DESC`),
        ids
      ),

    flagged: (q) =>
      Effect.map(
        db.read(sql<{ id: string }>`
          SELECT p.id FROM preferences pr
          JOIN posts p ON p.id = pr.name
          JOIN channels c ON c.id = p.channel_id
          JOIN channel_members cm ON cm.channel_id = p.channel_id AND cm.user_id = pr.user_id
          WHERE pr.user_id = ${q.userId} AND pr.category = 'flagged_post' AND pr.value <> 'false' AND p.delete_at = 0
            ${q.channelId === undefined ? sql`` : sql`AND p.channel_id = ${q.channelId}`}
            ${q.teamId === undefined ? sql`` : sql`AND (c.team_id = ${q.teamId} OR c.team_id = '')`}
          ORDER BY p.create_at DESC, p.id DESC OFFSET ${q.offset} LIMIT ${q.limit}`),
        ids
      ),

    threadRoot: (postId) =>
      Effect.map(
        db.read(sql<{ root: string }>`
          SELECT CASE WHEN root_id = '' THEN id ELSE root_id END AS root FROM posts WHERE id = ${postId}`),
        (rows) => Option.map(Option.fromNullable(rows[0]), (r) => r.root)
      ),

    lastViewedAt: (channelId, userId) =>
      Effect.map(
        db.read(sql<{ last_viewed_at: string }>`
          SELECT last_viewed_at FROM channel_members WHERE channel_id = ${channelId} AND user_id = ${userId}`),
        (rows) => Option.map(Option.fromNullable(rows[0]), (r) => Number(r.last_viewed_at))
      ),

    readable: (postIds, caller) =>
      postIds.length === 0
        ? Effect.succeed([])
        : Effect.map(
          db.read(sql<{ id: string }>`
            SELECT p.id FROM posts p JOIN channels c ON c.id = p.channel_id
            WHERE p.id = ANY(${[...postIds]}) AND p.delete_at = 0
              AND (${caller.isSystemAdmin}
                   OR EXISTS (SELECT 1 FROM channel_members cm WHERE cm.channel_id = c.id AND cm.user_id = ${caller.userId})
                   OR (c.type = 'O' AND EXISTS (SELECT 1 FROM team_members tm
                                                WHERE tm.team_id = c.team_id AND tm.user_id = ${caller.userId} AND tm.delete_at = 0)))`),
          ids
        )
  }
  return service
})

export const layer = Layer.effect(PostRepo, make)
