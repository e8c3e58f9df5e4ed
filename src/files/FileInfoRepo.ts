import { Effect, Option, Schema } from "effect"
import { Db } from "../../layers/Db.ts"
import { Int8, rows } from "../../layers/Rows.ts"
import { FileInfoRow as FileInfoRowSchema } from "./FileInfoRows.ts"
import type { FileInfoRow } from "./FileInfo.ts"
import { anyText } from "../../layers/SqlArrays.ts"

const Files = rows("FileInfoRepo files", FileInfoRowSchema)
const FilesWithPost = rows("FileInfoRepo file with post", Schema.Struct({ ...FileInfoRowSchema.fields, post_delete_at: Int8 }))

/**
 * SQL over file_infos. Posts attach uploads by setting file_infos.post_id (the posts feature writes it) and render
 * metadata.files with `forPosts`, one query for a whole page.
 */

/** A file with the deletion time of its post (0 when unattached or alive): files of deleted posts are not served. */
export interface FileInfoWithPost extends FileInfoRow {
  readonly post_delete_at: string | number
}

export const insertMany = (rows: ReadonlyArray<Omit<FileInfoRow, "delete_at">>) =>
  Effect.flatMap(Db, (db) =>
    rows.length === 0
      ? Effect.void
      : Effect.asVoid(db.sql`INSERT INTO file_infos ${db.sql.insert(rows.map((r) => ({ ...r, mini_preview: r.mini_preview === null ? null : Buffer.from(r.mini_preview) })))}`))

export const findById = (id: string) =>
  Effect.flatMap(Db, (db) =>
    Effect.map(
      db.read(db.sql`
        SELECT f.*, COALESCE(p.delete_at, 0) AS post_delete_at
        FROM file_infos f LEFT JOIN posts p ON p.id = f.post_id
        WHERE f.id = ${id}`.pipe(FilesWithPost)),
      (rows) => Option.fromNullable(rows[0])
    ))

/** Live files of the given posts, oldest first (file_infos_post_idx). */
export const forPosts = (postIds: ReadonlyArray<string>) =>
  Effect.flatMap(Db, (db) =>
    postIds.length === 0
      ? Effect.succeed([] as ReadonlyArray<FileInfoRow>)
      : db.read(db.sql`
          SELECT * FROM file_infos
          WHERE post_id = ${anyText(db.sql, postIds)} AND post_id <> '' AND delete_at = 0
          ORDER BY create_at, id`.pipe(Files)))
