import { Schema } from "effect"

/**
 * One address of `POST /teams/{team_id}/invite/email?graceful=true`: Mattermost's TeamInviteWithError, `error` null
 * when the invitation was queued, else Mattermost's AppError body.
 */
export const EmailInviteResult = Schema.Struct({
  email: Schema.String,
  error: Schema.NullOr(Schema.Struct({ id: Schema.String, message: Schema.String, status_code: Schema.Number }))
})
export type EmailInviteResult = typeof EmailInviteResult.Type
