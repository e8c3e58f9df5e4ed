import { Clock, Effect } from "effect"
import { Db } from "../../layers/Db.ts"
import { Invalid, NotFound } from "../../schemas/Errors.ts"
import * as CategoryStore from "./CategoryStore.ts"
import * as Sidebar from "./Sidebar.ts"

/**
 * One user's sidebar categories of one team, each operation in its own transaction; the defaults are created first
 * when missing. Writes answer the categories before and after them, so that callers can announce what changed.
 */

export const categoryMissing = () => new NotFound({ id: "app.channel.sidebar_categories.app_error", message: "Category not found." })

/** Runs a write on the sidebar in one transaction and returns the categories before and after it. */
const write = <E, R>(userId: string, teamId: string, change: (sql: Db["Type"]["sql"], now: number) => Effect.Effect<unknown, E, R>) =>
  Effect.gen(function*() {
    const db = yield* Db
    const sql = db.sql
    const now = yield* Clock.currentTimeMillis
    return yield* db.transaction(Effect.gen(function*() {
      yield* Sidebar.ensure(sql, userId, teamId, now)
      const before = yield* CategoryStore.list(sql, userId, teamId)
      yield* change(sql, now)
      const after = yield* CategoryStore.list(sql, userId, teamId)
      return { before, after }
    }))
  })

/** The categories, created first when missing (the first read of a team creates the defaults). */
export const read = (userId: string, teamId: string) =>
  Effect.gen(function*() {
    const db = yield* Db
    const now = yield* Clock.currentTimeMillis
    return yield* db.transaction(Effect.zipRight(Sidebar.ensure(db.sql, userId, teamId, now), CategoryStore.list(db.sql, userId, teamId)))
  })

export const reorder = (userId: string, teamId: string, order: ReadonlyArray<string>) =>
  write(userId, teamId, (sql) => CategoryStore.reorder(sql, userId, teamId, order))

export const update = (userId: string, teamId: string, updates: ReadonlyArray<CategoryStore.CategoryUpdate>) =>
  write(userId, teamId, (sql, now) => CategoryStore.update(sql, userId, teamId, updates, now))

export interface NewCategory {
  readonly id: string
  readonly displayName: string
  readonly sorting: string
  readonly muted: boolean
  readonly collapsed: boolean
  readonly channelIds: ReadonlyArray<string>
}

/**
 * A custom category, placed as Mattermost places it: right after Favorites when Favorites comes first, else first;
 * channels listed move into it.
 */
export const create = (userId: string, teamId: string, c: NewCategory) =>
  write(userId, teamId, (sql, now) =>
    Effect.gen(function*() {
      yield* sql`
        INSERT INTO sidebar_categories (id, user_id, team_id, display_name, type, sort_order, sorting, muted, collapsed)
        SELECT ${c.id}, ${userId}, ${teamId}, ${c.displayName}, 'custom',
               CASE WHEN first.type = 'favorites' THEN first.sort_order + 1 ELSE first.sort_order - 1 END,
               ${c.sorting}, ${c.muted}, ${c.collapsed}
        FROM (SELECT type, sort_order FROM sidebar_categories WHERE user_id = ${userId} AND team_id = ${teamId}
              ORDER BY sort_order, id LIMIT 1) first`
      yield* CategoryStore.renumber(sql, userId, teamId)
      yield* CategoryStore.update(sql, userId, teamId, [{ id: c.id, channel_ids: c.channelIds }], now)
    }))

/** Deletes a custom category; its channels return to the default categories. */
export const remove = (userId: string, teamId: string, categoryId: string) =>
  write(userId, teamId, (sql, now) =>
    Effect.gen(function*() {
      const current = yield* CategoryStore.list(sql, userId, teamId)
      const category = current.find((c) => c.id === categoryId)
      if (category === undefined) return yield* categoryMissing()
      if (category.type !== "custom") {
        return yield* new Invalid({ id: "api.sidebar_category.delete_category.type_invalid", message: "Only custom categories can be deleted." })
      }
      yield* sql`DELETE FROM sidebar_categories WHERE id = ${category.id}`
      yield* CategoryStore.renumber(sql, userId, teamId)
      yield* Sidebar.ensure(sql, userId, teamId, now)
    }))
