import { Effect, Option, Schema } from "effect"
import type { DbService } from "../../layers/Db.ts"
import { IdRow, Int8, rows } from "../../layers/Rows.ts"
import { IncomingWebhook } from "../../schemas/wire/Webhook.ts"

/** SQL for incoming webhooks. */

/** An incoming_webhooks row: the wire record (schemas/wire/Webhook.ts) with its bigint times decoded to numbers. */
const IncomingRow = Schema.Struct({ ...IncomingWebhook.fields, create_at: Int8, update_at: Int8, delete_at: Int8, last_used: Int8 })
export type IncomingRow = typeof IncomingRow.Type
const Hooks = rows("IncomingRepo hooks", IncomingRow)
const Ids = rows("IncomingRepo ids", IdRow)
const Owners = rows("IncomingRepo owner", Schema.Struct({ roles: Schema.String, is_bot: Schema.Boolean }))

export interface HookValues {
  readonly channelId: string
  readonly teamId: string
  readonly displayName: string
  readonly description: string
  readonly username: string
  readonly iconUrl: string
  readonly channelLocked: boolean
}

export const makeIncomingRepo = (db: DbService) => {
  const sql = db.sql
  const one = (rows: ReadonlyArray<IncomingRow>) => Option.fromNullable(rows[0])
  return {
    insert: (id: string, userId: string, v: HookValues, now: number) =>
      db.execute(sql`
        INSERT INTO incoming_webhooks (id, create_at, update_at, user_id, channel_id, team_id, display_name, description,
                                       username, icon_url, channel_locked)
        VALUES (${id}, ${now}, ${now}, ${userId}, ${v.channelId}, ${v.teamId}, ${v.displayName}, ${v.description},
                ${v.username}, ${v.iconUrl}, ${v.channelLocked})
        RETURNING *`.pipe(Hooks)).pipe(Effect.map((rows) => rows[0])),
    byId: (id: string) => db.read(sql`SELECT * FROM incoming_webhooks WHERE id = ${id} AND delete_at = 0`.pipe(Hooks)).pipe(Effect.map(one)),
    /** A team's hooks (or all), optionally only one user's; paged by creation. */
    list: (filter: { teamId?: string; userId?: string; page: number; perPage: number }) =>
      db.read(sql`
        SELECT * FROM incoming_webhooks WHERE delete_at = 0
          ${filter.teamId !== undefined ? sql`AND team_id = ${filter.teamId}` : sql``}
          ${filter.userId !== undefined ? sql`AND user_id = ${filter.userId}` : sql``}
        ORDER BY create_at, id LIMIT ${filter.perPage} OFFSET ${filter.page * filter.perPage}`.pipe(Hooks)),
    update: (id: string, v: HookValues, now: number) =>
      db.execute(sql`
        UPDATE incoming_webhooks SET update_at = ${now}, channel_id = ${v.channelId}, team_id = ${v.teamId},
          display_name = ${v.displayName}, description = ${v.description}, username = ${v.username},
          icon_url = ${v.iconUrl}, channel_locked = ${v.channelLocked}
        WHERE id = ${id} AND delete_at = 0 RETURNING *`.pipe(Hooks)).pipe(Effect.map(one)),
    remove: (id: string, now: number) =>
      db.execute(sql`UPDATE incoming_webhooks SET delete_at = ${now}, update_at = ${now} WHERE id = ${id} AND delete_at = 0`),
    touch: (id: string, now: number) => db.execute(sql`UPDATE incoming_webhooks SET last_used = ${now} WHERE id = ${id}`),
    /** A channel of the team by name, for a payload's channel override. */
    channelByName: (teamId: string, name: string) =>
      db.read(sql`SELECT id FROM channels WHERE team_id = ${teamId} AND name = ${name} AND delete_at = 0`.pipe(Ids)).pipe(
        Effect.map((rows) => Option.fromNullable(rows[0]?.id))
      ),
    /** The hook creator's roles, to post as them. */
    userRoles: (userId: string) =>
      db.read(sql`SELECT roles, is_bot FROM users WHERE id = ${userId} AND delete_at = 0`.pipe(Owners)).pipe(
        Effect.map((rows) => Option.fromNullable(rows[0]))
      )
  }
}
