import { Schema } from "effect"

/**
 * The UserAccessToken of @mattermost/types as listed and fetched: never the token. `expires_at` 0 is never.
 */
export const UserAccessToken = Schema.Struct({
  id: Schema.String,
  user_id: Schema.String,
  description: Schema.String,
  is_active: Schema.Boolean,
  expires_at: Schema.Number
})
export type UserAccessToken = typeof UserAccessToken.Type

/** `POST /users/{id}/tokens`: the new token with its secret, the only time it is shown. */
export const NewUserAccessToken = Schema.Struct({ ...UserAccessToken.fields, token: Schema.String })
export type NewUserAccessToken = typeof NewUserAccessToken.Type
