import { Effect, Option, Schema } from "effect"
import type { DbService } from "../../layers/Db.ts"
import { Int8, rows } from "../../layers/Rows.ts"
import { Command } from "../../schemas/wire/Command.ts"
import { anyText } from "../../layers/SqlArrays.ts"

/** SQL for custom slash commands and their response URLs. */

/** A commands row: the wire record (schemas/wire/Command.ts) with its bigint times decoded to numbers. */
const CommandRow = Schema.Struct({ ...Command.fields, create_at: Int8, update_at: Int8, delete_at: Int8 })
export type CommandRow = typeof CommandRow.Type

export interface CommandValues {
  readonly trigger: string
  readonly method: string
  readonly url: string
  readonly username: string
  readonly iconUrl: string
  readonly autoComplete: boolean
  readonly autoCompleteDesc: string
  readonly autoCompleteHint: string
  readonly displayName: string
  readonly description: string
}

const CommandHook = Schema.Struct({
  id: Schema.String,
  command_id: Schema.String,
  user_id: Schema.String,
  channel_id: Schema.String,
  root_id: Schema.String
})
export type CommandHook = typeof CommandHook.Type

const Commands = rows("CommandRepo commands", CommandRow)
const Hooks = rows("CommandRepo hooks", CommandHook)
const Users = rows("CommandRepo user", Schema.Struct({ username: Schema.String, roles: Schema.String, is_bot: Schema.Boolean }))
const NamedIds = rows("CommandRepo mentioned", Schema.Struct({ name: Schema.String, id: Schema.String }))
const Names = rows("CommandRepo teamName", Schema.Struct({ name: Schema.String }))

/** A response URL answers this long after its command ran, this many times (Mattermost's CommandWebhook limits). */
export const RESPONSE_URL_LIFETIME_MS = 30 * 60 * 1000
export const RESPONSE_URL_USES = 5

export const makeCommandRepo = (db: DbService) => {
  const sql = db.sql
  const one = (rows: ReadonlyArray<CommandRow>) => Option.fromNullable(rows[0])
  return {
    insert: (row: { id: string; token: string; creatorId: string; teamId: string; now: number }, v: CommandValues) =>
      db.execute(sql`
        INSERT INTO commands (id, token, create_at, update_at, creator_id, team_id, trigger, method, username, icon_url,
                              auto_complete, auto_complete_desc, auto_complete_hint, display_name, description, url)
        VALUES (${row.id}, ${row.token}, ${row.now}, ${row.now}, ${row.creatorId}, ${row.teamId}, ${v.trigger}, ${v.method},
                ${v.username}, ${v.iconUrl}, ${v.autoComplete}, ${v.autoCompleteDesc}, ${v.autoCompleteHint},
                ${v.displayName}, ${v.description}, ${v.url})
        ON CONFLICT (team_id, trigger) WHERE delete_at = 0 DO NOTHING
        RETURNING *`.pipe(Commands)).pipe(Effect.map(one)),
    byId: (id: string) => db.read(sql`SELECT * FROM commands WHERE id = ${id} AND delete_at = 0`.pipe(Commands)).pipe(Effect.map(one)),
    byTrigger: (teamId: string, trigger: string) =>
      db.read(sql`SELECT * FROM commands WHERE team_id = ${teamId} AND trigger = ${trigger} AND delete_at = 0`.pipe(Commands)).pipe(Effect.map(one)),
    /** A team's live commands, by trigger. */
    ofTeam: (teamId: string) => db.read(sql`SELECT * FROM commands WHERE team_id = ${teamId} AND delete_at = 0 ORDER BY trigger`.pipe(Commands)),
    triggerTaken: (teamId: string, trigger: string, exceptId: string) =>
      db.read(sql`SELECT 1 FROM commands WHERE team_id = ${teamId} AND trigger = ${trigger} AND id <> ${exceptId} AND delete_at = 0`).pipe(
        Effect.map((rows) => rows.length > 0)
      ),
    update: (id: string, v: CommandValues, now: number) =>
      db.execute(sql`
        UPDATE commands SET update_at = ${now}, trigger = ${v.trigger}, method = ${v.method}, url = ${v.url},
          username = ${v.username}, icon_url = ${v.iconUrl}, auto_complete = ${v.autoComplete},
          auto_complete_desc = ${v.autoCompleteDesc}, auto_complete_hint = ${v.autoCompleteHint},
          display_name = ${v.displayName}, description = ${v.description}
        WHERE id = ${id} AND delete_at = 0 RETURNING *`.pipe(Commands)).pipe(Effect.map(one)),
    move: (id: string, teamId: string, now: number) =>
      db.execute(sql`UPDATE commands SET team_id = ${teamId}, update_at = ${now} WHERE id = ${id} AND delete_at = 0 RETURNING *`.pipe(Commands)).pipe(
        Effect.map(one)
      ),
    regenerateToken: (id: string, token: string, now: number) =>
      db.execute(sql`UPDATE commands SET token = ${token}, update_at = ${now} WHERE id = ${id} AND delete_at = 0 RETURNING *`.pipe(Commands)).pipe(
        Effect.map(one)
      ),
    remove: (id: string, now: number) =>
      db.execute(sql`UPDATE commands SET delete_at = ${now}, update_at = ${now} WHERE id = ${id} AND delete_at = 0`),
    /** A response URL for one execution; expired ones go at the same time (the index on create_at finds them). */
    insertHook: (hook: CommandHook, now: number) =>
      db.execute(sql`
        WITH expired AS (DELETE FROM command_webhooks WHERE create_at < ${now - RESPONSE_URL_LIFETIME_MS})
        INSERT INTO command_webhooks (id, create_at, command_id, user_id, channel_id, root_id)
        VALUES (${hook.id}, ${now}, ${hook.command_id}, ${hook.user_id}, ${hook.channel_id}, ${hook.root_id})`),
    /** A response URL still within its lifetime, used or not. */
    liveHook: (id: string, now: number) =>
      db.read(sql`
        SELECT id, command_id, user_id, channel_id, root_id FROM command_webhooks
        WHERE id = ${id} AND create_at >= ${now - RESPONSE_URL_LIFETIME_MS}`.pipe(Hooks)).pipe(Effect.map((rows) => Option.fromNullable(rows[0]))),
    /** Counts one use of a live response URL; None when unknown, expired or used up. */
    useHook: (id: string, now: number) =>
      db.execute(sql`
        UPDATE command_webhooks SET use_count = use_count + 1
        WHERE id = ${id} AND create_at >= ${now - RESPONSE_URL_LIFETIME_MS} AND use_count < ${RESPONSE_URL_USES}
        RETURNING id, command_id, user_id, channel_id, root_id`.pipe(Hooks)).pipe(Effect.map((rows) => Option.fromNullable(rows[0]))),
    /** The user running a command, as the request to its URL names them, and their roles to act as them. */
    user: (userId: string) =>
      db.read(sql`
        SELECT username, roles, is_bot FROM users WHERE id = ${userId} AND delete_at = 0`.pipe(Users)).pipe(Effect.map((rows) => Option.fromNullable(rows[0]))),
    /** Of the names given, the team's active members and public channels (the request's mention maps). */
    mentioned: (teamId: string, usernames: ReadonlyArray<string>, channelNames: ReadonlyArray<string>) =>
      Effect.all({
        users: usernames.length === 0 ? Effect.succeed([]) : db.read(sql`
          SELECT u.username AS name, u.id FROM users u JOIN team_members tm ON tm.user_id = u.id
          WHERE tm.team_id = ${teamId} AND tm.delete_at = 0 AND u.delete_at = 0 AND lower(u.username) = ${anyText(sql, usernames)}`.pipe(NamedIds)),
        channels: channelNames.length === 0 ? Effect.succeed([]) : db.read(sql`
          SELECT name, id FROM channels WHERE team_id = ${teamId} AND type = 'O' AND delete_at = 0 AND name = ${anyText(sql, channelNames)}`.pipe(NamedIds))
      }),
    teamName: (teamId: string) =>
      db.read(sql`SELECT name FROM teams WHERE id = ${teamId}`.pipe(Names)).pipe(Effect.map((rows) => rows[0]?.name ?? ""))
  }
}
export type CommandRepo = ReturnType<typeof makeCommandRepo>
