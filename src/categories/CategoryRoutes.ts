import { HttpRouter } from "@effect/platform"
import { Clock, Effect, Schema } from "effect"
import { Db } from "../../layers/Db.ts"
import { newId } from "../../layers/Crypto.ts"
import { EventBus } from "../events/EventBus.ts"
import { badRequest, notFound } from "../http/ApiError.ts"
import * as Decode from "../http/Decode.ts"
import { json, ok } from "../http/Respond.ts"
import { ownDataInTeam, UserIdParam } from "../teams/UserParam.ts"
import * as CategoryStore from "./CategoryStore.ts"
import type { Category } from "./CategoryWire.ts"
import * as Sidebar from "./Sidebar.ts"

/** Sidebar categories (mattermost-compat.md section 6): per user and team, created on first read. */

const CategoryParams = Schema.Struct({ user_id: UserIdParam, team_id: Decode.Id, category_id: Schema.String })

const Sorting = Schema.Literal("", "alpha", "recent", "manual")

const CategoryBody = Schema.Struct({
  id: Schema.optional(Schema.String),
  display_name: Schema.optional(Schema.String),
  sorting: Schema.optional(Sorting),
  muted: Schema.optional(Schema.Boolean),
  collapsed: Schema.optional(Schema.Boolean),
  channel_ids: Schema.optional(Schema.Array(Decode.Id).pipe(Schema.maxItems(5000)))
})
const CategoriesBody = Schema.Array(Schema.Struct({ ...CategoryBody.fields, id: Schema.String })).pipe(Schema.maxItems(100))
const OrderBody = Schema.Array(Schema.String).pipe(Schema.maxItems(1000))

/** Runs a write on the sidebar in one transaction and returns the categories before and after it. */
const write = <A, E, R>(userId: string, teamId: string, change: (now: number) => Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const db = yield* Db
    const sql = db.sql
    const now = yield* Clock.currentTimeMillis
    return yield* db.transaction(Effect.gen(function*() {
      yield* Sidebar.ensure(sql, userId, teamId, now)
      const before = yield* CategoryStore.list(sql, userId, teamId)
      const result = yield* change(now)
      const after = yield* CategoryStore.list(sql, userId, teamId)
      return { before, after, result }
    }))
  })

/** The categories, created first when missing (the first read of a team creates the defaults). */
const read = (userId: string, teamId: string) =>
  Effect.gen(function*() {
    const db = yield* Db
    const now = yield* Clock.currentTimeMillis
    return yield* db.transaction(Effect.zipRight(Sidebar.ensure(db.sql, userId, teamId, now), CategoryStore.list(db.sql, userId, teamId)))
  })

/** Categories whose content changed, for sidebar_category_updated. */
const changed = (before: ReadonlyArray<Category>, after: ReadonlyArray<Category>) => {
  const old = new Map(before.map((c) => [c.id, JSON.stringify(c)]))
  return after.filter((c) => old.has(c.id) && old.get(c.id) !== JSON.stringify(c))
}

const publishUpdated = (userId: string, teamId: string, categories: ReadonlyArray<Category>) =>
  Effect.gen(function*() {
    if (categories.length === 0) return
    const bus = yield* EventBus
    yield* bus.publish("sidebar_category_updated", { updatedCategories: JSON.stringify(categories) }, { user_id: userId, team_id: teamId })
  })

const getCategories = Effect.gen(function*() {
  const { userId, teamId } = yield* ownDataInTeam
  const categories = yield* read(userId, teamId)
  return json({ categories, order: categories.map((c) => c.id) })
})

const getOrder = Effect.gen(function*() {
  const { userId, teamId } = yield* ownDataInTeam
  const categories = yield* read(userId, teamId)
  return json(categories.map((c) => c.id))
})

const putOrder = Effect.gen(function*() {
  const { userId, teamId } = yield* ownDataInTeam
  const order = yield* Decode.body(OrderBody)
  const db = yield* Db
  yield* write(userId, teamId, () => CategoryStore.reorder(db.sql, userId, teamId, order))
  const bus = yield* EventBus
  yield* bus.publish("sidebar_category_order_updated", { order, team_id: teamId }, { user_id: userId, team_id: teamId })
  return json(order)
})

const findCategory = (categories: ReadonlyArray<Category>, id: string) =>
  Effect.fromNullable(categories.find((c) => c.id === id)).pipe(
    Effect.mapError(() => notFound("app.channel.sidebar_categories.app_error", "Category not found."))
  )

const getCategory = Effect.gen(function*() {
  const { userId, teamId } = yield* ownDataInTeam
  const params = yield* Decode.params(CategoryParams)
  const categories = yield* read(userId, teamId)
  return json(yield* findCategory(categories, params.category_id))
})

/**
 * A custom category, placed as Mattermost places it: right after Favorites when Favorites comes first, else first;
 * channels listed move into it.
 */
const createCategory = Effect.gen(function*() {
  const { userId, teamId } = yield* ownDataInTeam
  const body = yield* Decode.body(CategoryBody)
  const displayName = (body.display_name ?? "").trim()
  if (displayName === "" || [...displayName].length > 64) {
    return yield* badRequest("api.sidebar_category.invalid.app_error", "Category names must be 1 to 64 characters.")
  }
  const db = yield* Db
  const sql = db.sql
  const id = newId()
  const { before, after } = yield* write(userId, teamId, (now) =>
    Effect.gen(function*() {
      yield* sql`
        INSERT INTO sidebar_categories (id, user_id, team_id, display_name, type, sort_order, sorting, muted, collapsed)
        SELECT ${id}, ${userId}, ${teamId}, ${displayName}, 'custom',
               CASE WHEN first.type = 'favorites' THEN first.sort_order + 1 ELSE first.sort_order - 1 END,
               ${body.sorting ?? ""}, ${body.muted ?? false}, ${body.collapsed ?? false}
        FROM (SELECT type, sort_order FROM sidebar_categories WHERE user_id = ${userId} AND team_id = ${teamId}
              ORDER BY sort_order, id LIMIT 1) first`
      yield* CategoryStore.renumber(sql, userId, teamId)
      yield* CategoryStore.update(sql, userId, teamId, [{ id, channel_ids: body.channel_ids ?? [] }], now)
    }))
  const bus = yield* EventBus
  yield* bus.publish("sidebar_category_created", { category_id: id }, { user_id: userId, team_id: teamId })
  yield* publishUpdated(userId, teamId, changed(before, after))
  return json(yield* findCategory(after, id), 201)
})

const updateMany = (userId: string, teamId: string, updates: ReadonlyArray<CategoryStore.CategoryUpdate>) =>
  Effect.gen(function*() {
    const db = yield* Db
    const { before, after } = yield* write(userId, teamId, (now) => CategoryStore.update(db.sql, userId, teamId, updates, now))
    yield* publishUpdated(userId, teamId, changed(before, after))
    return after
  })

const updateCategory = Effect.gen(function*() {
  const { userId, teamId } = yield* ownDataInTeam
  const params = yield* Decode.params(CategoryParams)
  const body = yield* Decode.body(CategoryBody)
  if (body.id !== undefined && body.id !== params.category_id) {
    return yield* badRequest("api.sidebar_category.invalid.app_error", "The category id in the body does not match the URL.")
  }
  const after = yield* updateMany(userId, teamId, [{ ...body, id: params.category_id }])
  return json(yield* findCategory(after, params.category_id))
})

const updateCategories = Effect.gen(function*() {
  const { userId, teamId } = yield* ownDataInTeam
  const body = yield* Decode.body(CategoriesBody)
  const after = yield* updateMany(userId, teamId, body)
  const ids = new Set(body.map((c) => c.id))
  return json(after.filter((c) => ids.has(c.id)))
})

/** Deletes a custom category; its channels return to the default categories. */
const deleteCategory = Effect.gen(function*() {
  const { userId, teamId } = yield* ownDataInTeam
  const params = yield* Decode.params(CategoryParams)
  const db = yield* Db
  const sql = db.sql
  const { before, after } = yield* write(userId, teamId, (now) =>
    Effect.gen(function*() {
      const current = yield* CategoryStore.list(sql, userId, teamId)
      const category = yield* findCategory(current, params.category_id)
      if (category.type !== "custom") {
        return yield* badRequest("api.sidebar_category.delete_category.type_invalid", "Only custom categories can be deleted.")
      }
      yield* sql`DELETE FROM sidebar_categories WHERE id = ${category.id}`
      yield* CategoryStore.renumber(sql, userId, teamId)
      yield* Sidebar.ensure(sql, userId, teamId, now)
    }))
  const bus = yield* EventBus
  yield* bus.publish("sidebar_category_deleted", { category_id: params.category_id }, { user_id: userId, team_id: teamId })
  yield* publishUpdated(userId, teamId, changed(before, after))
  return ok()
})

const base = "/api/v4/users/:user_id/teams/:team_id/channels/categories"

export const routes = HttpRouter.empty.pipe(
  HttpRouter.get(base, getCategories),
  HttpRouter.post(base, createCategory),
  HttpRouter.put(base, updateCategories),
  HttpRouter.get(`${base}/order`, getOrder),
  HttpRouter.put(`${base}/order`, putOrder),
  HttpRouter.get(`${base}/:category_id`, getCategory),
  HttpRouter.put(`${base}/:category_id`, updateCategory),
  HttpRouter.del(`${base}/:category_id`, deleteCategory)
)
