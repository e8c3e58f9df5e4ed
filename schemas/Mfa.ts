import { Schema } from "effect"

/** PUT /users/{user_id}/mfa: activate with a code from the authenticator app, or deactivate. */
export const UpdateMfaBody = Schema.Struct({
  activate: Schema.Boolean,
  code: Schema.optional(Schema.String.pipe(Schema.maxLength(64)))
})

/** POST /users/mfa: whether signing in as this login id needs a code. */
export const CheckMfaBody = Schema.Struct({ login_id: Schema.String.pipe(Schema.maxLength(256)) })

/** POST /users/{user_id}/mfa/generate answers the secret (base32) and a QR code (PNG, base64) of its otpauth URI. */
export interface MfaSecret {
  readonly secret: string
  readonly qr_code: string
}
