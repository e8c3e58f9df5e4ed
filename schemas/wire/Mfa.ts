import { Schema } from "effect"

/** The MfaSecret of @mattermost/types: `POST /users/{user_id}/mfa/generate` (the QR code a base64 PNG). */
export const MfaSecret = Schema.Struct({ secret: Schema.String, qr_code: Schema.String })
export type MfaSecret = typeof MfaSecret.Type

/** `POST /users/mfa`: whether signing in with this login id asks for a code. */
export const MfaRequired = Schema.Struct({ mfa_required: Schema.Boolean })
export type MfaRequired = typeof MfaRequired.Type
