import { Context, Effect, Layer, Schema } from "effect"
import { Db, type DbError } from "../../layers/Db.ts"
import { Int8Text, rows } from "../../layers/Rows.ts"
import { anyText } from "../../layers/SqlArrays.ts"

/** Counts the apps show as badges: channel member counts and unread thread mentions per channel. */
export const ChannelCount = Schema.Struct({ id: Schema.String, readable: Schema.Boolean, members: Int8Text })
export type ChannelCount = typeof ChannelCount.Type

export interface CountRepoService {
  /** For each known channel: whether the user may read it, and its active members. */
  readonly memberCounts: (userId: string, isAdmin: boolean, channelIds: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<ChannelCount>, DbError>
  /** Unread mentions in followed threads, per channel of the team (and direct and group messages). */
  readonly threadMentions: (userId: string, teamId: string) => Effect.Effect<ReadonlyArray<{ readonly channel_id: string; readonly mentions: string }>, DbError>
  /** Per team: followed threads with unread replies and their unread mentions (collapsed reply threads' badges). */
  readonly threadUnreadsByTeam: (userId: string) => Effect.Effect<ReadonlyArray<ThreadUnreads>, DbError>
}

export const ThreadUnreads = Schema.Struct({
  team_id: Schema.String,
  thread_count: Int8Text,
  thread_mention_count: Int8Text,
  thread_urgent_mention_count: Int8Text
})
export type ThreadUnreads = typeof ThreadUnreads.Type

const ChannelCounts = rows("CountRepo memberCounts", ChannelCount)
const Mentions = rows("CountRepo mentions", Schema.Struct({ channel_id: Schema.String, mentions: Int8Text }))
const ThreadUnreadRows = rows("CountRepo thread unreads", ThreadUnreads)

export class CountRepo extends Context.Tag("service/CountRepo")<CountRepo, CountRepoService>() {}

export const make = Effect.gen(function*() {
  const db = yield* Db
  const sql = db.sql
  const service: CountRepoService = {
    memberCounts: (userId, isAdmin, channelIds) =>
      db.read(sql`
        SELECT c.id,
               (${isAdmin}
                OR EXISTS (SELECT 1 FROM channel_members me WHERE me.channel_id = c.id AND me.user_id = ${userId})
                OR (c.type = 'O' AND EXISTS (SELECT 1 FROM team_members tm WHERE tm.team_id = c.team_id AND tm.user_id = ${userId} AND tm.delete_at = 0))
               ) AS readable,
               (SELECT count(*) FROM channel_members cm JOIN users u ON u.id = cm.user_id
                WHERE cm.channel_id = c.id AND u.delete_at = 0) AS members
        FROM channels c WHERE c.id = ${anyText(sql, channelIds)}`.pipe(ChannelCounts)),
    threadMentions: (userId, teamId) =>
      db.read(sql`
        SELECT p.channel_id, SUM(tmb.unread_mentions) AS mentions
        FROM thread_memberships tmb JOIN posts p ON p.id = tmb.post_id JOIN channels c ON c.id = p.channel_id
        WHERE tmb.user_id = ${userId} AND tmb.following AND tmb.unread_mentions > 0 AND p.delete_at = 0
          AND c.delete_at = 0 AND (c.team_id = ${teamId} OR c.team_id = '')
        GROUP BY p.channel_id`.pipe(Mentions)),
    threadUnreadsByTeam: (userId) =>
      db.read(sql`
        SELECT c.team_id,
               count(*) FILTER (WHERE th.last_reply_at > tmb.last_viewed) AS thread_count,
               COALESCE(SUM(tmb.unread_mentions), 0) AS thread_mention_count,
               COALESCE(SUM(tmb.unread_mentions) FILTER (WHERE pp.priority = 'urgent'), 0) AS thread_urgent_mention_count
        FROM thread_memberships tmb JOIN threads th ON th.post_id = tmb.post_id JOIN channels c ON c.id = th.channel_id
        LEFT JOIN post_priority pp ON pp.post_id = th.post_id
        WHERE tmb.user_id = ${userId} AND tmb.following AND th.delete_at = 0 AND c.delete_at = 0 AND c.team_id <> ''
        GROUP BY c.team_id`.pipe(ThreadUnreadRows))
  }
  return service
})

export const layer = Layer.effect(CountRepo, make)
