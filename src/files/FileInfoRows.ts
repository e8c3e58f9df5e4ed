import { Schema } from "effect"
import { Bytes, Int8 } from "../../layers/Rows.ts"

/** A file_infos row as the repos read it (decoded with layers/Rows.ts; FileInfo.ts's FileInfoRow, bigints as numbers). */
export const FileInfoRow = Schema.Struct({
  id: Schema.String,
  creator_id: Schema.String,
  post_id: Schema.String,
  channel_id: Schema.String,
  create_at: Int8,
  update_at: Int8,
  delete_at: Int8,
  path: Schema.String,
  thumbnail_path: Schema.String,
  preview_path: Schema.String,
  name: Schema.String,
  extension: Schema.String,
  size: Int8,
  mime_type: Schema.String,
  width: Schema.Number,
  height: Schema.Number,
  has_preview_image: Schema.Boolean,
  mini_preview: Schema.NullOr(Bytes)
})
