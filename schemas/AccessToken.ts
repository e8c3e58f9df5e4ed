import { Schema } from "effect"

/** Personal access tokens on the wire (@mattermost/types users.d.ts UserAccessToken). */

export const CreateAccessToken = Schema.Struct({
  description: Schema.String.pipe(Schema.maxLength(255, { message: () => "at most 255 characters" }))
})

export const TokenIdBody = Schema.Struct({ token_id: Schema.String })

export const SearchTokens = Schema.Struct({ term: Schema.String.pipe(Schema.maxLength(255, { message: () => "at most 255 characters" })) })

/** As listed and fetched: never the token. Creation adds `token` once. */
export interface AccessTokenWire {
  readonly id: string
  readonly user_id: string
  readonly description: string
  readonly is_active: boolean
  /** 0: never. */
  readonly expires_at: number
  readonly token?: string
}
