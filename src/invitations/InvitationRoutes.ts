import { HttpRouter } from "@effect/platform"
import { Effect, Schema } from "effect"
import { InviteEmailsBody } from "../../schemas/Invitations.ts"
import { authed, CurrentCaller } from "../auth/Guards.ts"
import { ApiError, badRequest, invalidParam, notFound, permissionDenied } from "../http/ApiError.ts"
import * as Decode from "../http/Decode.ts"
import { ok, respondWithAll } from "../http/Respond.ts"
import { EmailInviteResult } from "../../schemas/wire/Invitation.ts"
import * as RateLimit from "../ratelimit/RateLimit.ts"
import { badAddressError, inviteByEmail } from "./Invitations.ts"

/** POST /teams/{team_id}/invite/email[?graceful=true]: mails the team's invite link to each address. */

const Params = Schema.Struct({ team_id: Decode.Id })
const Query = Schema.Struct({ graceful: Schema.optionalWith(Decode.QueryBool, { default: () => false }) })

const inviteEmail = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const { team_id } = yield* Decode.params(Params)
  const { graceful } = yield* Decode.query(Query)
  // Each invitation is a mail to a stranger's address: the per-address limit of sign-in keeps this from being a relay.
  yield* RateLimit.enforce("auth")
  const emails = yield* Decode.body(InviteEmailsBody)
  const results = yield* inviteByEmail(caller, team_id, emails, graceful).pipe(
    Effect.catchTags({
      EmailInvitationsDisabled: () =>
        Effect.fail(new ApiError({ status: 501, id: "api.team.invite_members.disabled.app_error", message: "Email invitations are disabled: this server has no email configured." })),
      TeamNotFound: () => Effect.fail(notFound("app.team.get.find.app_error", "Team not found.")),
      NotTeamMember: () => Effect.fail(permissionDenied("this team")),
      TeamArchived: () => Effect.fail(badRequest("api.team.invite_members.archived.app_error", "The team is archived.")),
      NoAddresses: () => Effect.fail(invalidParam("user_email")),
      BadAddress: (e) => {
        const error = badAddressError(e)
        return Effect.fail(badRequest(error.id, error.message))
      }
    })
  )
  return graceful ? yield* respondWithAll(EmailInviteResult, results) : ok()
})

export const routes = HttpRouter.empty.pipe(HttpRouter.post("/api/v4/teams/:team_id/invite/email", authed(inviteEmail)))
