import type { Statement } from "@effect/sql"
import { Context, Effect, Layer, Option, Schema } from "effect"
import { anyText } from "../../layers/SqlArrays.ts"
import { Db, type DbError } from "../../layers/Db.ts"
import { IdRow, Int8, Int8Text, JsonArrayOf, JsonObject, JsonObjectOf, rows, type RowsDecoder, StringList } from "../../layers/Rows.ts"
import type { FileInfo } from "../../schemas/wire/FileInfo.ts"
import type { PostEmoji, PostPriority } from "../../schemas/wire/PostMetadata.ts"
import type { LinkPreview } from "../links/LinkPreviews.ts"
import type { UserRow } from "../users/UserRow.ts"
import { type AcknowledgementJson, type PostJson, type PostRow, type ReactionJson, toWire, type WireOptions } from "./PostWire.ts"

/**
 * Reading posts. Every list is two statements whatever its size: one picks the ids (an index walk), one hydrates
 * them with thread counters, the viewer's thread membership and all metadata (reactions, their custom emojis, file
 * infos, acknowledgements) aggregated per post in SQL, so a page never costs a query per post or per metadata kind.
 * A channel's posts are one statement (`gatedList`): the access check, the walk and the hydration together.
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

/** Posts of a channel changed (created, edited, deleted) at or after a time, newest first. */
export interface SinceQuery {
  readonly channelId: string
  readonly since: number
  readonly rootsOnly: boolean
}

/**
 * A list read in one statement behind Access's gate (issue 10): the ids (a window or the posts since a time), and
 * the posts `window[from .. from + count - 1]` (1-based) hydrated as `hydrate` does with `order` as its ids.
 */
export interface GatedList {
  readonly gate: Statement.Fragment
  readonly ids: { readonly window: WindowQuery } | { readonly since: SinceQuery }
  readonly from: number
  readonly count: number
  /** The order of the listed posts (the ids `hydrate` would be given), from the ids read. */
  readonly order: (ids: ReadonlyArray<string>) => ReadonlyArray<string>
}

export interface GatedPosts {
  /** The gate's row (`row_to_json(access)`), undefined when it had none. */
  readonly access: unknown
  /** The ids read, empty when the gate did not allow. */
  readonly ids: ReadonlyArray<string>
  /** What `hydrate(order(ids), options)` answers. */
  readonly posts: ReadonlyArray<PostJson>
  /** No post read has a thread (so none shows the caller's thread membership: PageCache). */
  readonly threadless: boolean
  /** The posts read that have a thread (with collapsed threads, those showing the caller's is_following). */
  readonly threaded: ReadonlyArray<string>
}

export interface PostRepoService {
  /** Hydrated posts in the order of `ids` (unknown ids skipped), plus the roots of replies when asked. */
  readonly hydrate: (ids: ReadonlyArray<string>, options: HydrateOptions) => Effect.Effect<ReadonlyArray<PostJson>, DbError>
  readonly channelWindow: (query: WindowQuery) => Effect.Effect<ReadonlyArray<string>, DbError>
  /**
   * The ids of a list and its posts in one statement, read only where the gate (a WITH item named `access` with a
   * boolean `allowed`: Access.channelGate) allows: a caller without access gets no ids and no posts.
   */
  readonly gatedList: (list: GatedList, options: HydrateOptions) => Effect.Effect<GatedPosts, DbError>
  /**
   * The gate's rows alone (`row_to_json(access)`, one per channel of Access.readerGates), for a list answered from
   * PageCache; each as ChannelGate.decide takes it.
   */
  readonly gates: (gate: Statement.Fragment) => Effect.Effect<ReadonlyArray<unknown>, DbError>
  /**
   * The gate's row and, when it allows, which of `threads` (root ids) the viewer follows: a collapsed-threads page
   * answered from PageCache, whose roots show the caller's own is_following.
   */
  readonly gateFollowing: (
    gate: Statement.Fragment,
    viewerId: string,
    threads: ReadonlyArray<string>
  ) => Effect.Effect<{ readonly access: unknown; readonly following: ReadonlySet<string> }, DbError>
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

/**
 * A row of the hydrating statement (PostWire.ts PostRow, read by toWire). The channel posts page decodes every post
 * through it, so it stays within what layers/Rows.ts compiles to its fast path: a flat struct of plain column kinds,
 * no refinements or nested structs. The bigints stay the driver's text (Int8Text: no conversion per column; toWire
 * converts them once), and the aggregated metadata is checked as arrays and objects only, its items built by the
 * statement's json_build_object. test/posts/HydratedRows.test.ts holds it to that cost.
 */
const HydratedRow = Schema.Struct({
  id: Schema.String,
  create_at: Int8Text,
  update_at: Int8Text,
  edit_at: Int8Text,
  delete_at: Int8Text,
  is_pinned: Schema.Boolean,
  user_id: Schema.String,
  channel_id: Schema.String,
  root_id: Schema.String,
  original_id: Schema.String,
  message: Schema.String,
  type: Schema.String,
  props: JsonObject,
  hashtags: Schema.String,
  file_ids: StringList,
  pending_post_id: Schema.String,
  has_reactions: Schema.Boolean,
  link_preview: Schema.NullOr(JsonObjectOf<LinkPreview>()),
  reply_count: Int8Text,
  last_reply_at: Schema.NullOr(Int8Text),
  participants: Schema.NullOr(StringList),
  is_following: Schema.NullOr(Schema.Boolean),
  reactions: Schema.NullOr(JsonArrayOf<ReadonlyArray<ReactionJson>>()),
  emojis: Schema.NullOr(JsonArrayOf<ReadonlyArray<typeof PostEmoji.Type>>()),
  files: Schema.NullOr(JsonArrayOf<ReadonlyArray<FileInfo>>()),
  acknowledgements: Schema.NullOr(JsonArrayOf<ReadonlyArray<AcknowledgementJson>>()),
  participant_users: Schema.NullOr(JsonArrayOf<ReadonlyArray<UserRow>>()),
  priority: Schema.NullOr(JsonObjectOf<typeof PostPriority.Type>())
})
export const HydratedRows: RowsDecoder<PostRow> = rows("PostRepo hydrate", HydratedRow)
const Ids = rows("PostRepo ids", IdRow)
const Roots = rows("PostRepo threadRoot", Schema.Struct({ root: Schema.String }))
const GateRow = Schema.Struct({ access: Schema.Unknown, ids: Schema.NullOr(Schema.Array(Schema.String)) })
const decodeGate = (value: unknown) =>
  Effect.orDie(Schema.decodeUnknown(GateRow)(value))
const decodeOrDie = <A>(decode: () => A) =>
  Effect.suspend(() => {
    try {
      return Effect.succeed(decode())
    } catch (defect) {
      return Effect.die(defect)
    }
  })
const LastViewed = rows("PostRepo lastViewedAt", Schema.Struct({ last_viewed_at: Int8 }))

export class PostRepo extends Context.Tag("service/PostRepo")<PostRepo, PostRepoService>() {}

export const make = Effect.gen(function*() {
  const db = yield* Db
  const sql = db.sql

  // The post columns a hydrated row starts with (HydratedRow's first fields).
  const postColumns = sql.literal(
    "p.id, p.create_at, p.update_at, p.edit_at, p.delete_at, p.is_pinned, p.user_id, p.channel_id, p.root_id, p.original_id, " +
      "p.message, p.type, p.props, p.hashtags, p.file_ids, p.pending_post_id, p.has_reactions, p.link_preview, " +
      "p.has_acknowledgements, p.has_priority, p.has_thread"
  )

  // One primary-key lookup per participant (a scalar subquery): joined to the unnested list instead, the planner
  // guesses 100 participants per thread and hashes the whole users table.
  const participantUsers = sql`(
    SELECT COALESCE(json_agg(pu.u ORDER BY pu.n), '[]')
    FROM (SELECT pa.n, (SELECT to_jsonb(u) - 'password' FROM users u WHERE u.id = pa.uid) AS u
          FROM jsonb_array_elements_text(t.participants) WITH ORDINALITY AS pa(uid, n)) pu
    WHERE pu.u IS NOT NULL)`

  // `wanted` (a WITH clause naming the post ids) drives the statement; each post's metadata is a correlated lookup by
  // key, NULL when there is none rather than '[]' (toWire reads NULL as empty; most posts of a page have none, and the
  // driver then parses nothing: issue 10). Those on partial indexes spell the index's predicate out (`f.post_id <> ''`
  // for file_infos_post_idx): the planner cannot infer it from `f.post_id = p.id` and would read the whole table for
  // every post.
  // Reactions (and their emojis) are looked up only for posts whose has_reactions is set, and files only for posts
  // with file ids, as Mattermost's metadata does (post_metadata.go): has_reactions is kept by every write of reactions
  // (ReactionRepo, EmojiRepo, imports) and a post's files are attached from its file_ids. Most posts of a page have
  // neither, and a lookup skipped is a subplan less per post (issue 10: a third of the statement's CPU on the load
  // simulation's pages). Acknowledgements and the priority likewise, behind has_acknowledgements and has_priority
  // (migrations/0310, kept by AckRepo and CreatePost): two index probes less per listed post (issue 31). A root's
  // thread (and the replies of the threads shown) likewise only where has_thread is set (migrations/0330, set with the
  // first reply by ThreadRepo.recordReply and the importer's refreshThreads, the only writers of threads): a
  // condition on the outer row alone, which PostgreSQL checks before the lateral's index probe.
  // The thread and the viewer's membership of it are one lookup per post by key (a lateral subquery kept apart by
  // OFFSET 0): joined plainly to the unioned posts, whose count the planner cannot bound, it hashes the whole threads
  // table (test/posts/Explain.test.ts).
  // Rows are decoded after `db.read`, not inside it: read runs a plain statement straight on the pool (Db.ts), and
  // a statement piped through a decoder is no longer one.
  const hydratedSelect = (viewerId: string, extended: boolean) =>
    sql`
      SELECT p.*,
             COALESCE(t.reply_count, 0) AS reply_count, t.last_reply_at, t.participants, t.following AS is_following,
             CASE WHEN p.has_reactions THEN (
               SELECT json_agg(json_build_object(
                        'user_id', r.user_id, 'post_id', r.post_id, 'emoji_name', r.emoji_name, 'create_at', r.create_at,
                        'update_at', r.update_at, 'delete_at', r.delete_at, 'remote_id', '', 'channel_id', r.channel_id)
                      ORDER BY r.create_at, r.user_id, r.emoji_name)
               FROM reactions r WHERE r.post_id = p.id AND r.delete_at = 0) END AS reactions,
             CASE WHEN p.has_reactions THEN (
               SELECT json_agg(json_build_object(
                        'id', e.id, 'create_at', e.create_at, 'update_at', e.update_at, 'delete_at', e.delete_at,
                        'creator_id', e.creator_id, 'name', e.name) ORDER BY e.name)
               FROM emoji e
               WHERE e.delete_at = 0
                 AND e.name IN (SELECT r.emoji_name FROM reactions r WHERE r.post_id = p.id AND r.delete_at = 0)) END AS emojis,
             CASE WHEN p.file_ids <> '[]' THEN (
               SELECT json_agg(json_strip_nulls(json_build_object(
                        'id', f.id, 'user_id', f.creator_id, 'post_id', f.post_id, 'channel_id', f.channel_id,
                        'create_at', f.create_at, 'update_at', f.update_at, 'delete_at', f.delete_at, 'name', f.name,
                        'extension', f.extension, 'size', f.size, 'mime_type', f.mime_type, 'width', f.width,
                        'height', f.height, 'has_preview_image', f.has_preview_image,
                        'mini_preview', translate(encode(f.mini_preview, 'base64'), chr(10), ''), 'archived', false))
                      ORDER BY f.create_at, f.id)
               FROM file_infos f WHERE f.post_id = p.id AND f.post_id <> '' AND f.delete_at = 0) END AS files,
             CASE WHEN p.has_acknowledgements THEN (
               SELECT json_agg(json_build_object('user_id', a.user_id, 'post_id', a.post_id, 'acknowledged_at', a.acknowledged_at)
                      ORDER BY a.acknowledged_at, a.user_id)
               FROM post_acknowledgements a WHERE a.post_id = p.id) END AS acknowledgements,
             CASE WHEN p.has_priority THEN (
               SELECT json_build_object('priority', pp.priority, 'requested_ack', pp.requested_ack,
                                        'persistent_notifications', pp.persistent_notifications)
               FROM post_priority pp WHERE pp.post_id = p.id) END AS priority,
             ${extended ? participantUsers : sql`NULL`} AS participant_users
      FROM wanted p
      LEFT JOIN LATERAL (
        SELECT t.reply_count, t.last_reply_at, t.participants, tm.following
        FROM threads t LEFT JOIN thread_memberships tm ON tm.post_id = t.post_id AND tm.user_id = ${viewerId}
        WHERE t.post_id = CASE WHEN p.root_id = '' THEN p.id ELSE p.root_id END
          AND (p.root_id <> '' OR p.has_thread)
        OFFSET 0) t ON true`

  const hydrateRows = (wanted: Statement.Fragment, viewerId: string, extended: boolean) =>
    db.read(sql`${wanted} ${hydratedSelect(viewerId, extended)}`).pipe(HydratedRows)

  // The posts wanted, as a union of index lookups bounded by the page: the listed posts (`listed`, a WITH item), the
  // roots of listed replies (primary key) and the undeleted replies of the threads they touch (posts_root_create_idx;
  // `root_id <> ''` is spelt out so that a generic plan can use that partial index). Written as one WHERE with ORs
  // instead, PostgreSQL cannot use any index and reads the whole posts table. Each post is read once, its columns
  // with it: the listed ones, then the roots and replies not listed (roots have no root_id and replies have one, so
  // those two never overlap).
  const wantedItem = (options: HydrateOptions) => {
    const roots = options.withRoots
      ? sql`UNION ALL SELECT ${postColumns} FROM posts p
            WHERE p.id IN (SELECT root_id FROM listed WHERE root_id <> '') AND p.id NOT IN (SELECT id FROM listed)`
      : sql``
    const threads = options.withThreads
      ? sql`UNION ALL SELECT ${postColumns} FROM posts p
            WHERE p.root_id <> '' AND p.delete_at = 0
              AND p.root_id IN (SELECT CASE WHEN root_id = '' THEN id ELSE root_id END FROM listed
                                WHERE root_id <> '' OR has_thread)
              AND p.id NOT IN (SELECT id FROM listed)`
      : sql``
    return sql`wanted AS (SELECT * FROM listed ${roots} ${threads})`
  }

  /** Hydrated rows as `hydrate` answers them: the posts of `list` in its order (unknown ids skipped), then the rest. */
  const ordered = (list: ReadonlyArray<string>, rows: ReadonlyArray<PostRow>, options: HydrateOptions) => {
    const byId = new Map(rows.map((row) => [row.id, toWire(row, options)]))
    const listed = new Set(list)
    const out: Array<PostJson> = []
    for (const id of list) {
      const post = byId.get(id)
      if (post !== undefined) out.push(post)
    }
    for (const row of rows) if (!listed.has(row.id)) out.push(byId.get(row.id)!)
    return out as ReadonlyArray<PostJson>
  }


  const ids = (statement: Effect.Effect<ReadonlyArray<unknown>, DbError>) =>
    Effect.map(Ids(statement), (rows) => rows.map((r) => r.id))

  // The ids of a list, or (`columns`, `also`: Statement fragments) more of its posts' columns under one more condition.
  //
  // The channel, a time anchor, OFFSET and LIMIT are given as sub-selects, (SELECT $n): a value PostgreSQL learns only when the
  // statement runs, in a custom plan as in a generic one. With them visible, a custom plan (the channel's own row
  // count from the statistics, the exact OFFSET and LIMIT) was costed 2-3 times cheaper than the generic plan (an
  // average channel, 10% of it for an unknown OFFSET/LIMIT), so PostgreSQL planned the channel page's statement
  // again on every run: about 1-2 ms of planning against 0.5 ms of execution (issue 31). Hidden, both plans cost the
  // same, and from its sixth run on a connection the named statement (layers/ServiceClient.ts) keeps its generic
  // plan. The plan is the same either way: the ordered walk of posts_channel_create_id_idx (posts_channel_root_create_idx
  // for collapsed threads), bounded by the LIMIT. This is a choice for these statements alone, not the pool's
  // plan_cache_mode: a generic plan is not safe for every statement the service runs (a LIKE on a prefix, a search).
  // test/performance/PageExplain.test.ts holds both: generic plans kept, buffers read bounded by the page.
  const windowSelect = (q: WindowQuery, columns: Statement.Fragment = sql`id`, also: ReadonlyArray<Statement.Fragment> = []) => {
    const filters = [
      ...also,
      sql`channel_id = (SELECT ${q.channelId}::text)`,
      ...(q.includeDeleted ? [] : [sql`delete_at = 0`]),
      ...(q.rootsOnly ? [sql`root_id = ''`] : [])
    ]
    const anchor = q.anchor !== undefined
      ? [q.direction === "older"
        ? sql`(create_at, id) < ((SELECT create_at FROM posts WHERE id = ${q.anchor} AND channel_id = ${q.channelId}), ${q.anchor})`
        : sql`(create_at, id) > ((SELECT create_at FROM posts WHERE id = ${q.anchor} AND channel_id = ${q.channelId}), ${q.anchor})`]
      : q.anchorTime !== undefined
      ? [q.direction === "older" ? sql`create_at <= (SELECT ${q.anchorTime}::bigint)` : sql`create_at > (SELECT ${q.anchorTime}::bigint)`]
      : []
    const order = q.direction === "older" ? sql`create_at DESC, id DESC` : sql`create_at ASC, id ASC`
    return sql`
      SELECT ${columns} FROM posts p WHERE ${sql.and([...filters, ...anchor])}
      ORDER BY ${order} OFFSET (SELECT ${q.offset}::bigint) LIMIT (SELECT ${q.limit}::bigint)`
  }

  // The posts of a channel changed (created, edited, deleted) at or after `since`, newest first, at most SINCE_LIMIT:
  // a client catching up. Which plan is right depends on how many posts changed since then, which only the values say:
  // a few (the usual catch-up) are found on posts_channel_update_idx and sorted; thousands (an old `since`) are found
  // by walking the channel's posts newest first until the limit, where the range would read them all (the whole
  // channel for a `since` of long ago: 50,000 rows in 55 ms instead of about 2,200). Given the values, PostgreSQL planned
  // this statement again on every run for that choice (1.1-1.3 ms of planning against 0.35 ms of execution, issue 31).
  // So the statement makes the choice itself when it runs, and its plan is the same whatever the values (as in
  // windowSelect, the values are sub-selects): the range is read in update_at order and stops at SINCE_LIMIT + 1 rows,
  // and only when it overflows does the walk run (a one-time filter on the range's count). The walk's `update_at + 0`
  // keeps the planner from reading that branch through the range as well. Both LIMITs are sub-selects too: a LIMIT
  // PostgreSQL does not know is costed as stopping after a tenth of the rows, so the range and the walk are read in
  // index order and stop at their limit; with the limits visible and a channel estimated smaller than them, a bitmap
  // scan of the whole channel and a sort was costed as cheap, and chosen when the channel's posts lie interleaved with
  // other channels' in the table, as they do in use (test/performance/HotPlans.test.ts).
  const SINCE_LIMIT = 1000
  const sinceSelect = (q: SinceQuery, also: ReadonlyArray<Statement.Fragment>) => {
    const roots = q.rootsOnly ? [sql`root_id = ''`] : []
    const channel = sql`channel_id = (SELECT ${q.channelId}::text)`
    const since = sql`(SELECT ${q.since}::bigint)`
    // Constants of the text, not parameters (one text, whose plan knows they are constant).
    const limit = sql.literal(String(SINCE_LIMIT))
    const overflow = sql.literal(String(SINCE_LIMIT + 1))
    return sql`
      SELECT * FROM (
        WITH changed AS MATERIALIZED (
          SELECT ${postColumns} FROM posts p WHERE ${sql.and([...also, channel, sql`update_at >= ${since}`, ...roots])}
          ORDER BY update_at LIMIT (SELECT ${overflow}))
        SELECT * FROM changed WHERE (SELECT count(*) FROM changed) <= ${limit}
        UNION ALL
        (SELECT ${postColumns} FROM posts p
         WHERE ${sql.and([sql`(SELECT count(*) FROM changed) > ${limit}`, channel, sql`update_at + 0 >= ${since}`, ...roots])}
         ORDER BY create_at DESC, id DESC LIMIT (SELECT ${limit}))
      ) changes ORDER BY create_at DESC, id DESC`
  }

  const service: PostRepoService = {
    hydrate: (postIds, options) =>
      Effect.gen(function*() {
        if (postIds.length === 0) return [] as ReadonlyArray<PostJson>
        const list = [...postIds]
        // anyText: the generic plan is kept (a thread's few posts or a new post's one had it planned again on every
        // run), each post and its metadata looked up by key whatever the count.
        const wanted = sql`
          WITH listed AS MATERIALIZED (SELECT ${postColumns} FROM posts p WHERE p.id = ${anyText(sql, list)}),
          ${wantedItem(options)}`
        const rows = yield* hydrateRows(wanted, options.viewer.userId, options.extended)
        return ordered(list, rows, options)
      }),

    gatedList: (list, options) =>
      Effect.gen(function*() {
        // One statement: the gate's row; the list (its posts' columns with their ids: the walk fetches their rows
        // anyway), walked only when allowed (a one-time filter); the listed posts taken from it, so each is read
        // once; and the hydration as `hydrate` runs it. The gate's row (with the list's ids) comes back as one more
        // row, its post columns NULL, told apart by its `gate` column.
        const allowed = [sql`EXISTS (SELECT 1 FROM access a WHERE a.allowed)`]
        const select = "window" in list.ids
          ? windowSelect(list.ids.window, postColumns, allowed)
          : sinceSelect(list.ids.since, allowed)
        const raw = yield* db.read(sql`
          WITH ${list.gate},
          walked AS MATERIALIZED (SELECT w.*, row_number() OVER () AS n FROM (${select}) w),
          listed AS MATERIALIZED (
            SELECT ${postColumns} FROM walked p WHERE p.n BETWEEN ${list.from} AND ${list.from + list.count - 1}),
          ${wantedItem(options)},
          hydrated AS (${hydratedSelect(options.viewer.userId, options.extended)})
          SELECT h.*, NULL::json AS gate FROM hydrated h
          UNION ALL
          SELECT h.*, json_build_object('access', row_to_json(a), 'ids', (SELECT array_agg(w.id ORDER BY w.n) FROM walked w)) AS gate
          FROM access a LEFT JOIN hydrated h ON false`)
        let gate: { readonly access: unknown; readonly ids: ReadonlyArray<string> | null } | undefined
        const postRows: Array<unknown> = []
        for (const row of raw as ReadonlyArray<{ readonly gate: unknown }>) {
          if (row.gate === null) postRows.push(row)
          else gate = yield* decodeGate(row.gate)
        }
        const ids = gate?.ids ?? []
        const rows = yield* decodeOrDie(() => HydratedRows.decode(postRows))
        // A thread row shows as last_reply_at (NOT NULL in threads), null where the lateral found none.
        const threaded = rows.filter((row) => row.last_reply_at !== null).map((row) => row.id)
        return {
          access: gate?.access,
          ids,
          posts: ordered(list.order(ids), rows, options),
          threadless: threaded.length === 0,
          threaded
        } satisfies GatedPosts
      }),

    gates: (gate) =>
      Effect.map(
        db.read(sql`WITH ${gate} SELECT row_to_json(a) AS access FROM access a`),
        (rows) => (rows as ReadonlyArray<{ readonly access: unknown }>).map((row) => row.access)
      ),

    // One key lookup per root (thread_memberships' primary key), only where the gate allows.
    gateFollowing: (gate, viewerId, threads) =>
      Effect.map(
        db.read(sql`
          WITH ${gate}
          SELECT row_to_json(a) AS access,
                 CASE WHEN a.allowed THEN (
                   SELECT array_agg(tm.post_id) FROM thread_memberships tm
                   WHERE tm.post_id = ${anyText(sql, threads)} AND tm.user_id = ${viewerId} AND tm.following) END AS following
          FROM access a`),
        (rows) => {
          const row = (rows as ReadonlyArray<{ readonly access: unknown; readonly following: ReadonlyArray<string> | null }>)[0]
          return { access: row?.access, following: new Set(row?.following ?? []) }
        }
      ),

    channelWindow: (q) => ids(db.read(windowSelect(q))),

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
      return ids(
        db.read(sql`
          SELECT id FROM posts WHERE ${sql.and(filters)} ORDER BY ${order}
          ${q.limit === undefined ? sql`` : sql`LIMIT ${q.limit}`}`)
      )
    },

    pinned: (channelId) =>
      ids(
        db.read(sql`
          SELECT id FROM posts WHERE channel_id = ${channelId} AND is_pinned AND delete_at = 0
          ORDER BY create_at DESC, id DESC`)
      ),

    flagged: (q) =>
      ids(
        db.read(sql`
          SELECT p.id FROM preferences pr
          JOIN posts p ON p.id = pr.name
          JOIN channels c ON c.id = p.channel_id
          JOIN channel_members cm ON cm.channel_id = p.channel_id AND cm.user_id = pr.user_id
          WHERE pr.user_id = ${q.userId} AND pr.category = 'flagged_post' AND pr.value <> 'false' AND p.delete_at = 0
            ${q.channelId === undefined ? sql`` : sql`AND p.channel_id = ${q.channelId}`}
            ${q.teamId === undefined ? sql`` : sql`AND (c.team_id = ${q.teamId} OR c.team_id = '')`}
          ORDER BY p.create_at DESC, p.id DESC OFFSET ${q.offset} LIMIT ${q.limit}`)
      ),

    threadRoot: (postId) =>
      Effect.map(
        db.read(sql`
          SELECT CASE WHEN root_id = '' THEN id ELSE root_id END AS root FROM posts WHERE id = ${postId}`).pipe(Roots),
        (rows) => Option.map(Option.fromNullable(rows[0]), (r) => r.root)
      ),

    lastViewedAt: (channelId, userId) =>
      Effect.map(
        db.read(sql`
          SELECT last_viewed_at FROM channel_members WHERE channel_id = ${channelId} AND user_id = ${userId}`).pipe(LastViewed),
        (rows) => Option.map(Option.fromNullable(rows[0]), (r) => r.last_viewed_at)
      ),

    readable: (postIds, caller) =>
      postIds.length === 0
        ? Effect.succeed([])
        : ids(
          db.read(sql`
            SELECT p.id FROM posts p JOIN channels c ON c.id = p.channel_id
            WHERE p.id = ANY(${[...postIds]}) AND p.delete_at = 0
              AND (${caller.isSystemAdmin}
                   OR EXISTS (SELECT 1 FROM channel_members cm WHERE cm.channel_id = c.id AND cm.user_id = ${caller.userId})
                   OR (c.type = 'O' AND EXISTS (SELECT 1 FROM team_members tm
                                                WHERE tm.team_id = c.team_id AND tm.user_id = ${caller.userId} AND tm.delete_at = 0)))`)
        )
  }
  return service
})

export const layer = Layer.effect(PostRepo, make)
