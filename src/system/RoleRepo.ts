import { Effect, Schema } from "effect"
import { Db } from "../../layers/Db.ts"
import { Int8, rows } from "../../layers/Rows.ts"
import type { DefaultRole } from "./RoleDefaults.ts"

/** The `roles` table (migration 0190): the roles the server decides from. */
export const RoleRow = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  display_name: Schema.String,
  description: Schema.String,
  create_at: Int8,
  update_at: Int8,
  delete_at: Int8,
  permissions: Schema.String,
  scheme_managed: Schema.Boolean,
  built_in: Schema.Boolean
})
export type RoleRow = typeof RoleRow.Type
const RoleRows = rows("RoleRepo roles", RoleRow)

export const all = Effect.flatMap(Db, (db) => db.read(db.sql`SELECT * FROM roles ORDER BY name`.pipe(RoleRows)))

/** Inserts the default roles whose names are missing; existing rows (and their edits) are left alone. */
export const seed = (roles: ReadonlyArray<DefaultRole & { readonly id: string }>, now: number) =>
  Effect.flatMap(Db, (db) =>
    db.execute(db.sql`
      INSERT INTO roles (id, name, display_name, description, create_at, update_at, delete_at, permissions, scheme_managed, built_in)
      SELECT r.id, r.name, r.display_name, r.description, ${now}, ${now}, 0, r.permissions, r.scheme_managed, r.built_in
      FROM unnest(${roles.map((r) => r.id)}::text[], ${roles.map((r) => r.name)}::text[], ${roles.map((r) => r.display_name)}::text[],
                  ${roles.map((r) => r.description)}::text[], ${roles.map((r) => r.permissions.join(" "))}::text[],
                  ${roles.map((r) => r.scheme_managed)}::boolean[], ${roles.map((r) => r.built_in)}::boolean[])
           AS r(id, name, display_name, description, permissions, scheme_managed, built_in)
      ON CONFLICT DO NOTHING`))

/** Replaces a role's permissions; the updated row, or none for an unknown id. */
export const setPermissions = (id: string, permissions: ReadonlyArray<string>, now: number) =>
  Effect.flatMap(Db, (db) =>
    Effect.map(
      db.execute(db.sql`
        UPDATE roles SET permissions = ${permissions.join(" ")}, update_at = ${now}
        WHERE id = ${id} AND delete_at = 0 RETURNING *`.pipe(RoleRows)),
      (rows) => rows[0]
    ))
