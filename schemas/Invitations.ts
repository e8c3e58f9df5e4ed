import { Schema } from "effect"

/** POST /teams/{team_id}/invite/email: a JSON array of addresses; `graceful=true` answers per address. */
export const MAX_INVITES_PER_REQUEST = 50

export const InviteEmailsBody = Schema.Array(Schema.String.pipe(Schema.maxLength(254))).pipe(
  Schema.maxItems(MAX_INVITES_PER_REQUEST, { message: () => `at most ${MAX_INVITES_PER_REQUEST} addresses per request` })
)

/** One address of a graceful answer: `error` is null when the invitation was queued. */
export interface EmailInviteResult {
  readonly email: string
  readonly error: null | { readonly id: string; readonly message: string; readonly status_code: number }
}
