import { Schema } from "effect"

/** `POST /users/login/sso/code-exchange`: the mobile app's session token and its CSRF token, once per login code. */
export const SsoCodeExchangeResult = Schema.Struct({ token: Schema.String, csrf: Schema.String })
export type SsoCodeExchangeResult = typeof SsoCodeExchangeResult.Type
