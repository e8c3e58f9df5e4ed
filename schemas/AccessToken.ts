import { Schema } from "effect"

/** Personal access token requests; the tokens themselves on the wire: schemas/wire/AccessToken.ts. */

export const CreateAccessToken = Schema.Struct({
  description: Schema.String.pipe(Schema.maxLength(255, { message: () => "at most 255 characters" }))
})

export const TokenIdBody = Schema.Struct({ token_id: Schema.String })

export const SearchTokens = Schema.Struct({ term: Schema.String.pipe(Schema.maxLength(255, { message: () => "at most 255 characters" })) })
