import { Config, Context, Effect, Layer, Option, Schema } from "effect"
import { randomToken } from "../../layers/Crypto.ts"
import { Db, type DbError } from "../../layers/Db.ts"
import { rows } from "../../layers/Rows.ts"

const Sections = rows("FileSettings section", Schema.Struct({ value: Schema.Unknown }))
const Salts = rows("FileSettings salt", Schema.Struct({ salt: Schema.String }))

/**
 * Mattermost's FileSettings that this server honours, from the `files` section of server_config (editable while
 * running) over the environment:
 * - `max_file_size` (bytes): largest accepted upload. Environment: SERVICE_FILES_MAX_FILE_SIZE. Default 100 MiB,
 *   Mattermost's default.
 * - `enable_public_link` (boolean): whether GET /files/{id}/link hands out public links. Default false, as Mattermost.
 * - `public_link_salt`: the key of public-link hashes, generated on first use and kept in the section.
 */
export const DEFAULT_MAX_FILE_SIZE = 100 * 1024 * 1024

export interface FileSettingsValues {
  readonly maxFileSize: number
  readonly enablePublicLink: boolean
}

export interface FileSettingsService {
  readonly current: Effect.Effect<FileSettingsValues, DbError>
  readonly publicLinkSalt: Effect.Effect<string, DbError>
}

export class FileSettings extends Context.Tag("service/FileSettings")<FileSettings, FileSettingsService>() {}

const Section = Schema.Struct({
  max_file_size: Schema.optional(Schema.Number.pipe(Schema.int(), Schema.positive())),
  enable_public_link: Schema.optional(Schema.Boolean),
  public_link_salt: Schema.optional(Schema.String)
})
const decodeSection = Schema.decodeUnknownOption(Section)

export const maxFileSizeFromEnv = Config.integer("SERVICE_FILES_MAX_FILE_SIZE").pipe(
  Config.withDefault(DEFAULT_MAX_FILE_SIZE),
  Config.validate({ message: "must be a positive number of bytes", validation: (n) => n > 0 })
)

export const make = Effect.gen(function*() {
  const db = yield* Db
  const sql = db.sql
  const envMaxFileSize = yield* maxFileSizeFromEnv
  const section = Effect.map(
    db.read(sql`SELECT value FROM server_config WHERE section = 'files'`.pipe(Sections)),
    (rows) => Option.getOrElse(Option.flatMap(Option.fromNullable(rows[0]?.value), decodeSection), () => ({}) as typeof Section.Type)
  )
  const service: FileSettingsService = {
    current: Effect.map(section, (s) => ({
      maxFileSize: s.max_file_size ?? envMaxFileSize,
      enablePublicLink: s.enable_public_link ?? false
    })),
    publicLinkSalt: Effect.gen(function*() {
      const existing = (yield* section).public_link_salt
      if (existing !== undefined && existing !== "") return existing
      // Concurrent first uses agree on one salt: only the first writer's value is kept.
      const rows = yield* db.execute(sql`
        INSERT INTO server_config (section, value, update_at)
        VALUES ('files', jsonb_build_object('public_link_salt', ${randomToken(24)}::text), 0)
        ON CONFLICT (section) DO UPDATE
          SET value = server_config.value || jsonb_build_object('public_link_salt',
                COALESCE(NULLIF(server_config.value->>'public_link_salt', ''), EXCLUDED.value->>'public_link_salt'))
        RETURNING value->>'public_link_salt' AS salt`.pipe(Salts))
      return rows[0].salt
    })
  }
  return service
})

export const layer = Layer.effect(FileSettings, make)
