import { Effect, Option, Schema } from "effect"
import type { DbService } from "../../layers/Db.ts"
import { Int8, Int8Text, rows, StringList } from "../../layers/Rows.ts"
import type { OutgoingHookInput } from "../../schemas/OutgoingWebhook.ts"
import { OutgoingWebhook } from "../../schemas/wire/Webhook.ts"

/** SQL for outgoing webhooks. */

/**
 * An outgoing_webhooks row: the wire record (schemas/wire/Webhook.ts) with its bigint times decoded to numbers and its
 * lists read from their stored form.
 */
const OutgoingRow = Schema.Struct({
  ...OutgoingWebhook.fields,
  create_at: Int8,
  update_at: Int8,
  delete_at: Int8,
  trigger_words: StringList,
  callback_urls: StringList
})
export type OutgoingRow = typeof OutgoingRow.Type
const Hooks = rows("OutgoingRepo hooks", OutgoingRow)
const ChannelTeams = rows("OutgoingRepo channel", Schema.Struct({ team_id: Schema.String, type: Schema.String, delete_at: Int8Text }))
const Oks = rows("OutgoingRepo check", Schema.Struct({ ok: Schema.Number }))
const Names = rows("OutgoingRepo names", Schema.Struct({ name: Schema.String }))

export const makeOutgoingRepo = (db: DbService) => {
  const sql = db.sql
  const one = (rows: ReadonlyArray<OutgoingRow>) => Option.fromNullable(rows[0])
  const words = (v: OutgoingHookInput) => JSON.stringify(v.trigger_words)
  const urls = (v: OutgoingHookInput) => JSON.stringify(v.callback_urls)
  return {
    insert: (hook: { id: string; token: string; creatorId: string; teamId: string }, v: OutgoingHookInput, now: number) =>
      db.execute(sql`
        INSERT INTO outgoing_webhooks (id, token, create_at, update_at, creator_id, channel_id, team_id, trigger_words,
                                       trigger_when, callback_urls, display_name, description, content_type, username, icon_url)
        VALUES (${hook.id}, ${hook.token}, ${now}, ${now}, ${hook.creatorId}, ${v.channel_id}, ${hook.teamId},
                ${words(v)}::jsonb, ${v.trigger_when}, ${urls(v)}::jsonb, ${v.display_name}, ${v.description},
                ${v.content_type}, ${v.username}, ${v.icon_url})
        RETURNING *`.pipe(Hooks)).pipe(Effect.map((rows) => rows[0])),
    byId: (id: string) => db.read(sql`SELECT * FROM outgoing_webhooks WHERE id = ${id} AND delete_at = 0`.pipe(Hooks)).pipe(Effect.map(one)),
    /** Hooks of a team (or all teams), optionally of one channel or one creator; paged by creation. */
    list: (filter: { teamId?: string; channelId?: string; creatorId?: string; page: number; perPage: number }) =>
      db.read(sql`
        SELECT * FROM outgoing_webhooks WHERE delete_at = 0
          ${filter.teamId !== undefined ? sql`AND team_id = ${filter.teamId}` : sql``}
          ${filter.channelId !== undefined ? sql`AND channel_id = ${filter.channelId}` : sql``}
          ${filter.creatorId !== undefined ? sql`AND creator_id = ${filter.creatorId}` : sql``}
        ORDER BY create_at, id LIMIT ${filter.perPage} OFFSET ${filter.page * filter.perPage}`.pipe(Hooks)),
    /** Every hook of a team: what a post in one of its channels may trigger (kept per node, OutgoingHookCache). */
    byTeam: (teamId: string) =>
      db.read(sql`SELECT * FROM outgoing_webhooks WHERE team_id = ${teamId} AND delete_at = 0`.pipe(Hooks)),
    /** Other hooks of the team, to refuse one that would answer the same words on the same URL twice. */
    others: (teamId: string, exceptId: string) =>
      db.read(sql`SELECT * FROM outgoing_webhooks WHERE team_id = ${teamId} AND id <> ${exceptId} AND delete_at = 0`.pipe(Hooks)),
    update: (id: string, creatorId: string, v: OutgoingHookInput, now: number) =>
      db.execute(sql`
        UPDATE outgoing_webhooks SET update_at = ${now}, creator_id = ${creatorId}, channel_id = ${v.channel_id},
          trigger_words = ${words(v)}::jsonb, trigger_when = ${v.trigger_when}, callback_urls = ${urls(v)}::jsonb,
          display_name = ${v.display_name}, description = ${v.description}, content_type = ${v.content_type},
          username = ${v.username}, icon_url = ${v.icon_url}
        WHERE id = ${id} AND delete_at = 0 RETURNING *`.pipe(Hooks)).pipe(Effect.map(one)),
    regenToken: (id: string, token: string, now: number) =>
      db.execute(sql`
        UPDATE outgoing_webhooks SET token = ${token}, update_at = ${now} WHERE id = ${id} AND delete_at = 0 RETURNING *`.pipe(Hooks)).pipe(Effect.map(one)),
    remove: (id: string, now: number) =>
      db.execute(sql`UPDATE outgoing_webhooks SET delete_at = ${now}, update_at = ${now} WHERE id = ${id} AND delete_at = 0`),
    /** The channel a hook watches, with what the checks need. */
    channel: (id: string) =>
      db.read(sql`SELECT team_id, type, delete_at FROM channels WHERE id = ${id}`.pipe(ChannelTeams)).pipe(
        Effect.map((rows) => Option.fromNullable(rows[0]))
      ),
    /** Whether a user is an active member of the team (a hook made for someone else must be theirs to use). */
    activeTeamMember: (userId: string, teamId: string) =>
      db.read(sql`
        SELECT 1 AS ok FROM team_members tm JOIN users u ON u.id = tm.user_id
        WHERE tm.team_id = ${teamId} AND tm.user_id = ${userId} AND tm.delete_at = 0 AND u.delete_at = 0`.pipe(Oks)).pipe(Effect.map((rows) => rows.length > 0)),
    teamName: (teamId: string) =>
      db.read(sql`SELECT name FROM teams WHERE id = ${teamId}`.pipe(Names)).pipe(Effect.map((rows) => rows[0]?.name ?? ""))
  }
}
