import { Schema } from "effect"

/** Request bodies of the password-recovery endpoints (POST /users/password/reset/send and /users/password/reset). */

export const SendResetBody = Schema.Struct({ email: Schema.String })

/** Client4 sends `token`; the OpenAPI document names it `code`. Either is accepted. */
export const ResetBody = Schema.Struct({
  token: Schema.optional(Schema.String),
  code: Schema.optional(Schema.String),
  new_password: Schema.String
})
