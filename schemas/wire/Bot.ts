import { Schema } from "effect"

/**
 * The Bot of @mattermost/types (src/bots/Bots.ts): `user_id` is the bot's user. Display name and description are
 * always sent, "" when unset.
 */
export const Bot = Schema.Struct({
  user_id: Schema.String,
  username: Schema.String,
  display_name: Schema.String,
  description: Schema.String,
  owner_id: Schema.String,
  create_at: Schema.Number,
  update_at: Schema.Number,
  delete_at: Schema.Number
})
export type Bot = typeof Bot.Type
