import { Effect } from "effect"
import { Access } from "../access/Access.ts"
import type { Caller } from "../auth/Authenticate.ts"
import { type TeamRow, teamView, toTeam } from "./TeamWire.ts"

/**
 * Teams as the caller may see them, sanitized one by one from the caller's permissions in each (TeamWire's TeamView:
 * the invite id with invite_user, the email with manage_team), in one statement for the whole list.
 */
export const viewTeams = (caller: Caller, rows: ReadonlyArray<TeamRow>) =>
  Effect.map(
    Effect.flatMap(Access, (access) => access.teamPermissions(caller, rows.map((r) => r.id))),
    (can) => rows.map((r) => toTeam(r, teamView(can(r.id))))
  )
