import { Deferred, Effect, Exit, FiberId, Schema } from "effect"
import type { DbError, DbService } from "../../layers/Db.ts"
import { Int8, JsonObject, rows } from "../../layers/Rows.ts"
import type { ChannelRef } from "../access/Access.ts"
import type { Caller } from "../auth/Authenticate.ts"
import { hashtags } from "./MessageText.ts"
import { WINDOW_MS } from "./PendingPostIds.ts"

/** A root post without files, as `CreatePost` hands it over to be written. */
export interface RootPostInput {
  readonly id: string
  readonly now: number
  readonly caller: Caller
  readonly channelId: string
  readonly input: {
    readonly message: string
    readonly type: string
    readonly props: Record<string, unknown>
    readonly pending_post_id: string
  }
  readonly mentioned: ReadonlyArray<string>
}

/** What was written for one post: its time and stored props, its author's name, the channel's row it checked. */
export interface RootPostWritten {
  readonly id: string
  readonly channel: ChannelRef
  readonly username: string
  readonly createAt: number
  readonly props: Record<string, unknown>
  readonly hashtags: string
}

/**
 * A post not written because its author's `pending_post_id` is claimed by a post already written (PendingPostIds.ts):
 * the request is a retry, answered with that post.
 */
export const DUPLICATE = "duplicate"

/** What a post came to: written, a retry of a written one, or undefined when the statement's guard did not hold. */
export type RootPostOutcome = RootPostWritten | typeof DUPLICATE | undefined

interface Entry {
  readonly post: RootPostInput
  readonly guarded: boolean
  readonly hashtags: string
  readonly done?: Deferred.Deferred<RootPostOutcome, DbError>
}

/** The most posts one statement writes; more waiting go in the next. */
const BATCH_MAX = 100

/**
 * Root posts without files into one channel, written together (issue 10). Every post updates its channel's row (the
 * counters, and last_post_at, from which create_at is made strictly increasing per channel), and PostgreSQL holds an
 * UPDATE's row lock until the commit is on disk: posts into one busy channel used to commit one after another, each
 * behind the previous one's fsync, and contended for the row meanwhile. Now a node writes one statement at a time per
 * channel: a post arriving while its channel's statement is under way waits for it and goes in the next, with every
 * other post that arrived meanwhile. A post into a quiet channel is written at once, alone, on its request's fiber,
 * as before; under load a channel's posts share a statement, a commit and the channel row's update. Each batch is
 * one transaction: all of it or none, and a batch that fails is written again post by post, so that one refused post
 * fails alone.
 *
 * The waiting posts are kept per database service (one per server in a process; the tests run several), keyed by
 * channel: an in-process queue with no capability of its own to wrap, hence not a Layer.
 */
const waiting = new WeakMap<DbService, Map<string, Array<Entry>>>()

export const writeRootPost = (
  db: DbService,
  post: RootPostInput,
  options: { readonly guarded?: boolean } = {}
): Effect.Effect<RootPostOutcome, DbError> =>
  // Claiming the channel and installing its hand-over happen with interruption held off: a request interrupted in
  // between would leave the channel claimed by nobody, and every later post into it waiting for ever. The write
  // itself stays interruptible; the hand-over runs whatever happens to it.
  Effect.uninterruptibleMask((restore) => Effect.suspend(() => {
    let channels = waiting.get(db)
    if (channels === undefined) waiting.set(db, channels = new Map())
    const entry = { post, guarded: options.guarded === true, hashtags: hashtags(post.input.message) }
    const queue = channels.get(post.channelId)
    if (queue !== undefined) {
      // The channel's statement is under way: this post goes in the next one, written by the fiber draining them.
      const done = Deferred.unsafeMake<RootPostOutcome, DbError>(FiberId.none)
      queue.push({ ...entry, done })
      return restore(Deferred.await(done))
    }
    channels.set(post.channelId, [])
    return restore(writeAlone(db, entry)).pipe(Effect.ensuring(handOver(db, channels, post.channelId)))
  }))

/** After a statement: the posts that arrived meanwhile are written by a fiber of their own, or the channel is free. */
const handOver = (db: DbService, channels: Map<string, Array<Entry>>, channelId: string): Effect.Effect<void> =>
  Effect.suspend(() => {
    const next = channels.get(channelId) ?? []
    if (next.length === 0) {
      channels.delete(channelId)
      return Effect.void
    }
    channels.set(channelId, next.slice(BATCH_MAX))
    const batch = next.slice(0, BATCH_MAX)
    return Effect.asVoid(Effect.forkDaemon(Effect.uninterruptible(
      Effect.flatMap(writeBatch(db, batch), () => handOver(db, channels, channelId))
    )))
  })

const written = (db: DbService, batch: ReadonlyArray<Entry>) =>
  Effect.map(db.execute(statement(db, batch)), (raw) => resultsOf(batch, raw))

const writeAlone = (db: DbService, entry: Entry) => Effect.map(written(db, [entry]), (results) => results[0])

/**
 * A batch's posts: each waiting fiber gets its own result; when the batch fails (nothing of it was written), each post
 * is written again alone and gets its own outcome, so that one refused post fails alone.
 */
const writeBatch = (db: DbService, batch: ReadonlyArray<Entry>): Effect.Effect<void> =>
  Effect.flatMap(Effect.exit(written(db, batch)), (exit) =>
    Exit.isSuccess(exit)
      ? Effect.sync(() => batch.forEach((e, i) => Deferred.unsafeDone(e.done!, Exit.succeed(exit.value[i]))))
      : Effect.forEach(batch, (e) =>
        batch.length === 1
          ? Deferred.failCause(e.done!, exit.cause)
          : Effect.flatMap(Effect.exit(writeAlone(db, e)), (one) => Deferred.done(e.done!, one)), { discard: true }))

const Written = rows("CreatePost root posts", Schema.Struct({
  id: Schema.String,
  duplicate: Schema.Boolean,
  at: Int8,
  props: JsonObject,
  username: Schema.NullOr(Schema.String),
  team_id: Schema.String,
  type: Schema.String,
  name: Schema.String,
  display_name: Schema.String
}))

/**
 * In the batch's order; DUPLICATE for a post whose pending id was claimed already, undefined for a post the statement
 * did not write (its guard did not hold).
 */
const resultsOf = (batch: ReadonlyArray<Entry>, raw: ReadonlyArray<unknown>): ReadonlyArray<RootPostOutcome> => {
  // A row mismatch throws here, inside the effect that called this: the defect `rows` answers.
  const byId = new Map(Written.decode(raw).map((row) => [row.id, row]))
  return batch.map((entry) => {
    const post = entry.post
    const row = byId.get(post.id)
    if (row === undefined) return undefined
    if (row.duplicate) return DUPLICATE
    return {
      id: post.id,
      channel: { id: post.channelId, team_id: row.team_id, type: row.type, name: row.name, display_name: row.display_name, delete_at: 0 },
      username: row.username ?? "",
      createAt: row.at,
      props: row.props,
      hashtags: entry.hashtags
    }
  })
}

/**
 * One statement, so one transaction, for the batch (in arrival order, which is the order of create_at):
 * - `permitted`: the posts that may be written. With `guarded`, the checks `createPost` makes before a root post that
 *   mentions nobody, on the channel's row: it exists and is not deleted, the author may write in it (a member, or a
 *   system admin, as Access decides "write"), and it is neither a direct nor a group channel (where every other
 *   member is mentioned). A post not permitted is not written, and `createPost` takes the general way for it, which
 *   answers the same error as before. Unguarded posts were checked by Access.
 * - `claimed`: the permitted posts' pending ids, claimed for their authors (PendingPostIds.ts), in key order so that
 *   racing statements take them in one order (no deadlock); a live claim of another post is left alone (and waited
 *   for while its transaction runs). The first of a batch's posts sharing an author and pending id claims it.
 * - `allowed`: the permitted posts without a pending id or with their claim; the others are retries, answered
 *   `duplicate`.
 * - `c`: the channel's counters, once for the batch; the k-th allowed post gets create_at `last - count + k`.
 * - `p`: the posts.
 * - `members`: one update per member touched, as if the posts had been written one by one: an author's read state is
 *   that of their last post in the batch (mentions reset), a mentioned member counts the posts naming them after
 *   their own last one. The author of a post is never among its mentioned.
 *
 * The arrays are sub-selects, (SELECT $n): given as values, each custom plan saw the batch's size (one post, mostly)
 * and costed cheaper than the generic plan (costed for 10), so PostgreSQL planned the statement again on every post:
 * 0.8 ms of planning against 0.4 ms of execution (issue 31). Hidden, the custom and generic plans are the same and the
 * generic one is kept (test/performance/HotPlans.test.ts); every step of it is by key, whatever the batch's size.
 */
const BATCH_SQL = `
  WITH input AS (
    SELECT * FROM unnest((SELECT $3::text[]), (SELECT $4::text[]), (SELECT $5::boolean[]), (SELECT $6::boolean[]),
                         (SELECT $7::text[]), (SELECT $8::text[]), (SELECT $9::text[]), (SELECT $10::text[]),
                         (SELECT $11::text[]))
      WITH ORDINALITY AS i(id, user_id, is_admin, guarded, message, type, props, hashtags, pending_post_id, n)
  ), channel AS (
    SELECT delete_at = 0 AND type NOT IN ('D', 'G') AS open FROM channels WHERE id = $1
  ), permitted AS (
    SELECT i.*
    FROM input i, channel ch
    WHERE NOT i.guarded OR (ch.open AND (i.is_admin OR EXISTS (
      SELECT 1 FROM channel_members m WHERE m.channel_id = $1 AND m.user_id = i.user_id)))
  ), claimed AS (
    INSERT INTO post_pending_ids (user_id, pending_post_id, post_id, create_at)
    SELECT DISTINCT ON (user_id, pending_post_id) user_id, pending_post_id, id, $2
    FROM permitted WHERE pending_post_id <> '' ORDER BY user_id, pending_post_id, n
    ON CONFLICT (user_id, pending_post_id) DO UPDATE SET post_id = EXCLUDED.post_id, create_at = EXCLUDED.create_at
      WHERE post_pending_ids.create_at < $14
    RETURNING post_id
  ), allowed AS (
    SELECT p.*, row_number() OVER (ORDER BY p.n) AS k
    FROM permitted p
    WHERE p.pending_post_id = '' OR p.id IN (SELECT post_id FROM claimed)
  ), counted AS (
    SELECT count(*) AS n FROM allowed
  ), c AS (
    UPDATE channels SET
      last_post_at = GREATEST(last_post_at + 1, $2) + counted.n - 1,
      last_root_post_at = GREATEST(last_post_at + 1, $2) + counted.n - 1,
      total_msg_count = total_msg_count + counted.n,
      total_msg_count_root = total_msg_count_root + counted.n
    FROM counted
    WHERE id = $1 AND counted.n > 0
    RETURNING last_post_at - counted.n AS at0, total_msg_count - counted.n AS total0,
              total_msg_count_root - counted.n AS root0, team_id, type, name, display_name
  ), p AS (
    INSERT INTO posts (id, create_at, update_at, user_id, channel_id, root_id, message, type, props, hashtags,
                       file_ids, pending_post_id)
    SELECT a.id, c.at0 + a.k, c.at0 + a.k, a.user_id, $1, '', a.message, a.type, a.props::jsonb, a.hashtags,
           '[]'::jsonb, a.pending_post_id
    FROM allowed a, c
    RETURNING id, create_at, props
  ), mention AS (
    SELECT m.user_id, a.k FROM unnest((SELECT $12::int[]), (SELECT $13::text[])) AS m(n, user_id) JOIN allowed a ON a.n = m.n
  ), authored AS (
    SELECT user_id, max(k) AS k FROM allowed GROUP BY user_id
  ), touched AS (
    SELECT u.user_id, au.k AS authored,
           (SELECT count(*) FROM mention mm WHERE mm.user_id = u.user_id AND mm.k > COALESCE(au.k, 0)) AS mentions
    FROM (SELECT user_id FROM authored UNION SELECT user_id FROM mention) u
    LEFT JOIN authored au ON au.user_id = u.user_id
  ), members AS (
    UPDATE channel_members cm SET
      last_viewed_at = CASE WHEN t.authored IS NULL THEN cm.last_viewed_at ELSE c.at0 + t.authored END,
      msg_count = CASE WHEN t.authored IS NULL THEN cm.msg_count ELSE c.total0 + t.authored END,
      msg_count_root = CASE WHEN t.authored IS NULL THEN cm.msg_count_root ELSE c.root0 + t.authored END,
      mention_count = CASE WHEN t.authored IS NULL THEN cm.mention_count ELSE 0 END + t.mentions,
      mention_count_root = CASE WHEN t.authored IS NULL THEN cm.mention_count_root ELSE 0 END + t.mentions,
      urgent_mention_count = CASE WHEN t.authored IS NULL THEN cm.urgent_mention_count ELSE 0 END,
      last_update_at = $2
    FROM touched t, c
    WHERE cm.channel_id = $1 AND cm.user_id = t.user_id
  )
  SELECT p.id, false AS duplicate, p.create_at AS at, p.props, (SELECT username FROM users WHERE id = a.user_id) AS username,
         c.team_id, c.type, c.name, c.display_name
  FROM p JOIN allowed a ON a.id = p.id, c
  UNION ALL
  SELECT pm.id, true, 0, '{}'::jsonb, NULL, '', '', '', ''
  FROM permitted pm WHERE pm.pending_post_id <> '' AND pm.id NOT IN (SELECT post_id FROM claimed)`

const statement = (db: DbService, batch: ReadonlyArray<Entry>) => {
  const mentionAt: Array<number> = []
  const mentionUser: Array<string> = []
  batch.forEach(({ post }, i) => {
    for (const user of post.mentioned) {
      mentionAt.push(i + 1)
      mentionUser.push(user)
    }
  })
  const posts = batch.map((e) => e.post)
  return db.sql.unsafe(BATCH_SQL, [
    batch[0].post.channelId,
    Math.max(...posts.map((p) => p.now)),
    posts.map((p) => p.id),
    posts.map((p) => p.caller.userId),
    // A system admin passes the membership test as Access's "write" does, while their roles grant create_post.
    posts.map((p) => p.caller.isSystemAdmin && p.caller.can("create_post")),
    batch.map((e) => e.guarded),
    posts.map((p) => p.input.message),
    posts.map((p) => p.input.type),
    posts.map((p) => JSON.stringify(p.input.props)),
    batch.map((e) => e.hashtags),
    posts.map((p) => p.input.pending_post_id),
    mentionAt,
    mentionUser,
    Math.max(...posts.map((p) => p.now)) - WINDOW_MS
  ])
}
