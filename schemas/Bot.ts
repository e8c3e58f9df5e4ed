import { Schema } from "effect"

/** Bots on the wire (@mattermost/types bots.d.ts). */

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

export interface BotWire {
  readonly user_id: string
  readonly username: string
  readonly display_name: string
  readonly description: string
  readonly owner_id: string
  readonly create_at: number
  readonly update_at: number
  readonly delete_at: number
}
