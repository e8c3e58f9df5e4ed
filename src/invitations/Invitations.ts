import { Data, Effect, Option } from "effect"
import { Mailer } from "../../layers/Mailer.ts"
import type { Caller } from "../auth/Authenticate.ts"
import { AppConfig } from "../Config.ts"
import { teamInvitation } from "../mail/Templates.ts"
import { siteName } from "../system/ServerSettings.ts"
import { domainAllowed } from "../teams/TeamValidation.ts"
import { isValidEmail } from "../users/Validation.ts"
import type { EmailInviteResult } from "../../schemas/Invitations.ts"
import { InvitationRepo } from "./InvitationRepo.ts"
import { Access } from "../access/Access.ts"
import { need } from "../access/Permission.ts"

/**
 * Team invitations by mail: each address gets the team's invite link (`/signup_user_complete/?id={invite_id}`, the
 * link Mattermost's web app turns into sign-up with `iid`). As in Mattermost, any member of the team may invite
 * (team_user carries invite_user and add_user_to_team), and the team's allowed domains bound who can be invited.
 */
export class EmailInvitationsDisabled extends Data.TaggedError("EmailInvitationsDisabled")<{}> {}
export class TeamNotFound extends Data.TaggedError("TeamNotFound")<{}> {}
export class NotTeamMember extends Data.TaggedError("NotTeamMember")<{}> {}
export class TeamArchived extends Data.TaggedError("TeamArchived")<{}> {}
export class NoAddresses extends Data.TaggedError("NoAddresses")<{}> {}
export class BadAddress extends Data.TaggedError("BadAddress")<{ readonly reason: "invalid" | "domain"; readonly email: string; readonly allowed: string }> {}

export const badAddressError = (e: BadAddress) =>
  e.reason === "invalid"
    ? { id: "api.team.invite_members.invalid_email.app_error", message: "The email address is not valid.", status_code: 400 }
    : {
      id: "api.team.invite_members.invalid_email.app_error",
      message: `The email domain is not one of the team's allowed domains: ${e.allowed.slice(0, 200)}`,
      status_code: 400
    }

export const inviteByEmail = (caller: Caller, teamId: string, emails: ReadonlyArray<string>, graceful: boolean) =>
  Effect.gen(function*() {
    const mailer = yield* Mailer
    if (!mailer.enabled) return yield* new EmailInvitationsDisabled()
    const found = yield* (yield* InvitationRepo).team(teamId, caller.userId)
    if (Option.isNone(found)) return yield* new TeamNotFound()
    const team = found.value
    if (!team.callerIsMember && !caller.isSystemAdmin) return yield* new NotTeamMember()
    // invite_user in the team (its members by default), from the caller's system and team roles.
    yield* need(yield* Effect.flatMap(Access, (access) => access.teamMember(caller, teamId)), "invite_user")
    if (team.archived || team.inviteId === "") return yield* new TeamArchived()
    const addresses = [...new Set(emails.map((e) => e.trim()).filter((e) => e !== ""))]
    if (addresses.length === 0) return yield* new NoAddresses()
    const checked = addresses.map((email) =>
      !isValidEmail(email)
        ? new BadAddress({ reason: "invalid", email, allowed: team.allowedDomains })
        : !domainAllowed(email, team.allowedDomains)
        ? new BadAddress({ reason: "domain", email, allowed: team.allowedDomains })
        : email
    )
    // Without graceful, one bad address refuses the whole request before anything is sent, as in Mattermost.
    const firstBad = checked.find((c) => c instanceof BadAddress)
    if (!graceful && firstBad !== undefined) return yield* firstBad
    const config = yield* AppConfig
    const site = yield* siteName
    const link = `${config.siteUrl}/signup_user_complete/?id=${encodeURIComponent(team.inviteId)}`
    const results: Array<EmailInviteResult> = []
    for (const entry of checked) {
      if (entry instanceof BadAddress) {
        results.push({ email: entry.email, error: badAddressError(entry) })
        continue
      }
      const queued = yield* mailer.enqueue(teamInvitation({ to: entry, siteName: site, link, inviter: team.inviterName, team: team.displayName })).pipe(
        Effect.as(true),
        Effect.catchAll(() => Effect.succeed(false))
      )
      results.push({
        email: entry,
        error: queued ? null : { id: "api.team.invite_members.send.app_error", message: "The invitation could not be queued; try again later.", status_code: 503 }
      })
    }
    return results
  })
