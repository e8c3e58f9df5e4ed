import { Schema } from "effect"

/** Request bodies of the endpoints that mail a one-time token: password recovery and email verification. */

/** POST /users/password/reset/send and POST /users/email/verify/send. */
export const SendEmailBody = Schema.Struct({ email: Schema.String })

/** Client4 sends `token`; the OpenAPI document names it `code`. Either is accepted. */
export const ResetBody = Schema.Struct({
  token: Schema.optional(Schema.String),
  code: Schema.optional(Schema.String),
  new_password: Schema.String
})

/** POST /users/email/verify. */
export const VerifyEmailBody = Schema.Struct({ token: Schema.String })
