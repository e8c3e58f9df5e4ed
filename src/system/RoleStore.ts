import { createHash } from "node:crypto"
import { Clock, Context, Effect, Layer, Schedule, Stream } from "effect"
import type { DbError } from "../../layers/Db.ts"
import { Db } from "../../layers/Db.ts"
import { PubSub } from "../../layers/PubSub.ts"
import type { Role } from "../../schemas/wire/Role.ts"
import { DEFAULT_ROLES } from "./RoleDefaults.ts"
import * as RoleRepo from "./RoleRepo.ts"

/**
 * Each node's copy of the `roles` table, from which every permission check is answered in memory (the hot paths
 * pay a few Set lookups, never a query). A PATCH writes the table, then reloads this node's copy and announces the
 * change on TOPIC: every other node reloads its copy as the announcement arrives (a few milliseconds over Redis),
 * so a permission taken away is refused everywhere at once. A node whose subscription broke (and may have missed
 * announcements) reloads too, and every node reloads every RELOAD_EVERY as a bound should an announcement be lost.
 */
export const TOPIC = "service:roles-changed"
const RELOAD_EVERY = "60 seconds"

/** One immutable version of the roles; a caller's checks within a request read one snapshot. */
export interface RoleSnapshot {
  /** Grows with every reload, so what was derived from an older snapshot can tell it is stale. */
  readonly version: number
  readonly roles: ReadonlyArray<Role>
  readonly byName: (name: string) => Role | undefined
  readonly byId: (id: string) => Role | undefined
  /** Whether any of the named roles grants the permission (unknown names grant nothing). */
  readonly grants: (roleNames: ReadonlyArray<string>, permission: string) => boolean
}

export interface RoleStoreService {
  readonly current: () => RoleSnapshot
  /** Sets a role's permissions (already validated); the updated role, or undefined for an unknown id. */
  readonly setPermissions: (id: string, permissions: ReadonlyArray<string>) => Effect.Effect<Role | undefined, DbError>
}

export class RoleStore extends Context.Tag("service/RoleStore")<RoleStore, RoleStoreService>() {}

const ID_ALPHABET = "ybndrfg8ejkmcpqxot1uwisza345h769"

/** A 26-character Mattermost-shaped id derived from the role name: the same on every installation and node. */
export const roleId = (name: string) => {
  const digest = createHash("sha256").update(`role:${name}`).digest()
  let out = ""
  for (let i = 0; i < 26; i++) out += ID_ALPHABET[digest[i] & 31]
  return out
}

const toRole = (row: RoleRepo.RoleRow): Role => ({
  id: row.id,
  name: row.name,
  display_name: row.display_name,
  description: row.description,
  create_at: row.create_at,
  update_at: row.update_at,
  delete_at: row.delete_at,
  permissions: row.permissions.split(" ").filter((p) => p !== ""),
  scheme_managed: row.scheme_managed,
  built_in: row.built_in
})

export const snapshotOf = (roles: ReadonlyArray<Role>, version: number): RoleSnapshot => {
  const names = new Map(roles.map((r) => [r.name, r] as const))
  const ids = new Map(roles.map((r) => [r.id, r] as const))
  const sets = new Map(roles.filter((r) => r.delete_at === 0).map((r) => [r.name, new Set(r.permissions)] as const))
  return {
    version,
    roles,
    byName: (name) => names.get(name),
    byId: (id) => ids.get(id),
    grants: (roleNames, permission) => {
      for (const name of roleNames) {
        if (sets.get(name)?.has(permission) === true) return true
      }
      return false
    }
  }
}

export const layer = Layer.scoped(
  RoleStore,
  Effect.gen(function*() {
    const db = yield* Db
    const pubsub = yield* PubSub
    const provide = Effect.provideService(Db, db)
    yield* provide(RoleRepo.seed(DEFAULT_ROLES.map((r) => ({ ...r, id: roleId(r.name) })), yield* Clock.currentTimeMillis))

    let snapshot = snapshotOf((yield* provide(RoleRepo.all)).map(toRole), 1)
    // One reload at a time: a reload that starts after an announcement reads the table as it is after that change,
    // and none that started earlier can finish after it and put older rows back.
    const lock = yield* Effect.makeSemaphore(1)
    const reload = lock.withPermits(1)(
      Effect.map(provide(RoleRepo.all), (rows) => {
        snapshot = snapshotOf(rows.map(toRole), snapshot.version + 1)
      })
    )
    const reloadLogged = reload.pipe(Effect.catchAll((e) => Effect.logWarning("roles: reload failed; the previous copy stays", e)))

    yield* Effect.forkScoped(Stream.runForEach(pubsub.subscribe(TOPIC), () => reloadLogged))
    yield* Effect.forkScoped(Stream.runForEach(pubsub.gaps, () => reloadLogged))
    yield* Effect.forkScoped(Effect.repeat(reloadLogged, Schedule.spaced(RELOAD_EVERY)))

    const service: RoleStoreService = {
      current: () => snapshot,
      setPermissions: (id, permissions) =>
        Effect.gen(function*() {
          const row = yield* provide(RoleRepo.setPermissions(id, permissions, yield* Clock.currentTimeMillis))
          if (row === undefined) return undefined
          yield* reload
          yield* pubsub.publish(TOPIC, id).pipe(
            Effect.catchAll((e) => Effect.logWarning("roles: other nodes not told of a change; they reload within a minute", e))
          )
          return toRole(row)
        })
    }
    return service
  })
)
