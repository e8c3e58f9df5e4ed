import type { FileInfo } from "../../schemas/wire/FileInfo.ts"

/** A file_infos row as PostgreSQL returns it (bigint columns arrive as strings, bytea as a Buffer). */
export interface FileInfoRow {
  readonly id: string
  readonly creator_id: string
  readonly post_id: string
  readonly channel_id: string
  readonly create_at: string | number
  readonly update_at: string | number
  readonly delete_at: string | number
  readonly path: string
  readonly thumbnail_path: string
  readonly preview_path: string
  readonly name: string
  readonly extension: string
  readonly size: string | number
  readonly mime_type: string
  readonly width: number
  readonly height: number
  readonly has_preview_image: boolean
  readonly mini_preview: Uint8Array | null
}

/** The `FileInfo` of @mattermost/types (schemas/wire/FileInfo.ts). */
export type FileInfoWire = FileInfo

export const toWire = (row: FileInfoRow): FileInfoWire => ({
  id: row.id,
  user_id: row.creator_id,
  channel_id: row.channel_id,
  post_id: row.post_id,
  create_at: Number(row.create_at),
  update_at: Number(row.update_at),
  delete_at: Number(row.delete_at),
  name: row.name,
  extension: row.extension,
  size: Number(row.size),
  mime_type: row.mime_type,
  width: row.width,
  height: row.height,
  has_preview_image: row.has_preview_image,
  ...(row.mini_preview !== null && row.mini_preview.length > 0 ? { mini_preview: Buffer.from(row.mini_preview).toString("base64") } : {}),
  archived: false
})
