import { Schema } from "effect"

/** The bodies of bot creation and patches (@mattermost/types bots.d.ts); the bot itself is schemas/wire/Bot.ts. */

const DisplayName = Schema.String.pipe(Schema.maxLength(64, { message: () => "at most 64 characters" }))
const Description = Schema.String.pipe(Schema.maxLength(1024, { message: () => "at most 1024 characters" }))

export const CreateBot = Schema.Struct({
  username: Schema.String.pipe(Schema.maxLength(64, { message: () => "at most 64 characters" })),
  display_name: Schema.optionalWith(DisplayName, { default: () => "" }),
  description: Schema.optionalWith(Description, { default: () => "" })
})

export const PatchBot = Schema.Struct({
  username: Schema.optional(Schema.String.pipe(Schema.maxLength(64, { message: () => "at most 64 characters" }))),
  display_name: Schema.optional(DisplayName),
  description: Schema.optional(Description)
})
export type PatchBot = typeof PatchBot.Type
