import type { CustomEmoji } from "../../schemas/wire/Emoji.ts"

/** An emoji row (bigint columns arrive as strings). */
export interface EmojiRow {
  readonly id: string
  readonly create_at: string | number
  readonly update_at: string | number
  readonly delete_at: string | number
  readonly creator_id: string
  readonly name: string
}

/** The `CustomEmoji` of @mattermost/types (schemas/wire/Emoji.ts). */
export const toWire = (row: EmojiRow): CustomEmoji => ({
  id: row.id,
  create_at: Number(row.create_at),
  update_at: Number(row.update_at),
  delete_at: Number(row.delete_at),
  creator_id: row.creator_id,
  name: row.name,
  category: "custom"
})

/** Where an emoji's image lives in the FileStore. */
export const imageKey = (emojiId: string) => `emoji/${emojiId}/image`
