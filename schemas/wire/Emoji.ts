import { Schema } from "effect"

/** The CustomEmoji of @mattermost/types (src/emoji/EmojiWire.ts): a custom emoji is always in category "custom". */
export const CustomEmoji = Schema.Struct({
  id: Schema.String,
  create_at: Schema.Number,
  update_at: Schema.Number,
  delete_at: Schema.Number,
  creator_id: Schema.String,
  name: Schema.String,
  category: Schema.Literal("custom")
})
export type CustomEmoji = typeof CustomEmoji.Type
