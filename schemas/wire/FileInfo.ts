import { Schema } from "effect"

/**
 * The FileInfo of @mattermost/types as this server sends it (src/files/FileInfo.ts, and the posts' metadata built in
 * SQL): `mini_preview` is base64, as Go encodes []byte, and absent when there is none.
 */
export const FileInfo = Schema.Struct({
  id: Schema.String,
  user_id: Schema.String,
  channel_id: Schema.String,
  post_id: Schema.String,
  create_at: Schema.Number,
  update_at: Schema.Number,
  delete_at: Schema.Number,
  name: Schema.String,
  extension: Schema.String,
  size: Schema.Number,
  mime_type: Schema.String,
  width: Schema.Number,
  height: Schema.Number,
  has_preview_image: Schema.Boolean,
  mini_preview: Schema.optionalWith(Schema.String, { exact: true }),
  archived: Schema.Boolean
})
export type FileInfo = typeof FileInfo.Type

/** The FileUploadResponse of @mattermost/types: the stored files, and the client ids the upload named, in order. */
export const FileUploadResponse = Schema.Struct({ file_infos: Schema.Array(FileInfo), client_ids: Schema.Array(Schema.String) })
export type FileUploadResponse = typeof FileUploadResponse.Type

/** `GET /files/{file_id}/link`: the file's public link. */
export const FilePublicLink = Schema.Struct({ link: Schema.String })
export type FilePublicLink = typeof FilePublicLink.Type

/**
 * `POST /files/search`: the FileSearchResults of @mattermost/types (`file_infos` keyed by id, in `order`), with
 * `has_next` as Mattermost's FileInfoList sends it.
 */
export const FileSearchResults = Schema.Struct({
  order: Schema.Array(Schema.String),
  file_infos: Schema.Record({ key: Schema.String, value: FileInfo }),
  next_file_info_id: Schema.String,
  prev_file_info_id: Schema.String,
  has_next: Schema.Boolean
})
export type FileSearchResults = typeof FileSearchResults.Type
