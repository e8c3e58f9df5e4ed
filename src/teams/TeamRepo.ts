import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { newId } from "../../layers/Crypto.ts"
import * as Membership from "./Membership.ts"
import type { TeamRow } from "./TeamWire.ts"

/** Team writes shared by the API (POST /teams) and the admin command line; run inside the caller's transaction. */

export interface NewTeam {
  readonly id: string
  readonly now: number
  readonly name: string
  readonly displayName: string
  readonly type: "O" | "I"
  readonly description: string
  readonly companyName: string
  readonly allowedDomains: string
  readonly allowOpenInvite: boolean
  /** The user who creates it: its contact email and first team admin. None from the command line. */
  readonly creatorId: string | null
}

/**
 * Inserts the team with its default channels and makes the creator its admin; None when the name is taken (the
 * unique index decides, so two creations of one name cannot both succeed).
 */
export const insertWithDefaultChannels = (sql: SqlClient.SqlClient, t: NewTeam) =>
  Effect.gen(function*() {
    const inserted = yield* sql<TeamRow>`
      INSERT INTO teams (id, create_at, update_at, display_name, name, description, email, type, company_name,
                         allowed_domains, invite_id, allow_open_invite)
      VALUES (${t.id}, ${t.now}, ${t.now}, ${t.displayName}, ${t.name}, ${t.description},
              COALESCE((SELECT email FROM users WHERE id = ${t.creatorId ?? ""}), ''), ${t.type},
              ${t.companyName}, ${t.allowedDomains}, ${newId()}, ${t.allowOpenInvite})
      ON CONFLICT (name) DO NOTHING
      RETURNING *`
    if (inserted.length === 0) return undefined
    const [first, second] = Membership.DEFAULT_CHANNELS
    yield* sql`
      INSERT INTO channels (id, create_at, update_at, team_id, type, display_name, name)
      VALUES (${newId()}, ${t.now}, ${t.now}, ${t.id}, 'O', ${first.display_name}, ${first.name}),
             (${newId()}, ${t.now}, ${t.now}, ${t.id}, 'O', ${second.display_name}, ${second.name})`
    const join = yield* Membership.add(sql, t.id, t.creatorId === null ? [] : [t.creatorId], true, t.now)
    return { team: inserted[0], join }
  })

/** A live team by id or name. */
export const findByIdOrName = (sql: SqlClient.SqlClient, idOrName: string) =>
  Effect.map(
    sql<TeamRow>`SELECT * FROM teams WHERE (id = ${idOrName} OR name = ${idOrName}) AND delete_at = 0 LIMIT 1`,
    (rows) => rows[0]
  )
