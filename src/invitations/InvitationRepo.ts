import { Context, Effect, Layer, Option, Schema } from "effect"
import { Db, type DbError } from "../../layers/Db.ts"
import { Int8Text, rows } from "../../layers/Rows.ts"

const Teams = rows("InvitationRepo team", Schema.Struct({
  id: Schema.String,
  display_name: Schema.String,
  invite_id: Schema.String,
  allowed_domains: Schema.String,
  delete_at: Int8Text,
  member: Schema.Boolean,
  inviter: Schema.NullOr(Schema.String)
}))

/** What a team invitation mail needs of the team and the person inviting. */
export interface InvitationTeam {
  readonly id: string
  readonly displayName: string
  readonly inviteId: string
  readonly allowedDomains: string
  readonly archived: boolean
  readonly callerIsMember: boolean
  readonly inviterName: string
}

export interface InvitationRepoService {
  readonly team: (teamId: string, callerId: string) => Effect.Effect<Option.Option<InvitationTeam>, DbError>
}

export class InvitationRepo extends Context.Tag("service/InvitationRepo")<InvitationRepo, InvitationRepoService>() {}

export const make = Effect.gen(function*() {
  const db = yield* Db
  const sql = db.sql
  const service: InvitationRepoService = {
    team: (teamId, callerId) =>
      Effect.map(
        db.read(sql`
          SELECT t.id, t.display_name, t.invite_id, t.allowed_domains, t.delete_at,
                 EXISTS (SELECT 1 FROM team_members tm WHERE tm.team_id = t.id AND tm.user_id = ${callerId} AND tm.delete_at = 0) AS member,
                 (SELECT CASE WHEN trim(u.first_name || ' ' || u.last_name) <> '' THEN trim(u.first_name || ' ' || u.last_name)
                              ELSE u.username END FROM users u WHERE u.id = ${callerId}) AS inviter
          FROM teams t WHERE t.id = ${teamId}`.pipe(Teams)),
        (rows) =>
          Option.map(Option.fromNullable(rows[0]), (r) => ({
            id: r.id,
            displayName: r.display_name,
            inviteId: r.invite_id,
            allowedDomains: r.allowed_domains,
            archived: Number(r.delete_at) > 0,
            callerIsMember: r.member,
            inviterName: r.inviter ?? ""
          }))
      )
  }
  return service
})

export const layer = Layer.effect(InvitationRepo, make)
