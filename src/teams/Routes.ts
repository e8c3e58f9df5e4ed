import { HttpRouter } from "@effect/platform"
import * as ConsoleTeams from "./ConsoleTeamRoutes.ts"
import * as EmailInvites from "../invitations/InvitationRoutes.ts"
import * as Invites from "./InviteRoutes.ts"
import * as TeamIcon from "./TeamIconRoutes.ts"
import * as TeamMembers from "./TeamMemberRoutes.ts"
import * as Teams from "./TeamRoutes.ts"

/** Every /api/v4 team path, and the console's /api/v1/admin/teams. */
export const routes = HttpRouter.concatAll(Teams.routes, TeamMembers.routes, Invites.routes, EmailInvites.routes, TeamIcon.routes, ConsoleTeams.routes)
