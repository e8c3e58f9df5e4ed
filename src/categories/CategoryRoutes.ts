import { HttpRouter } from "@effect/platform"
import { Effect, Schema } from "effect"
import { newId } from "../../layers/Crypto.ts"
import { DomainEvent } from "../../schemas/Events.ts"
import { EventBus } from "../events/EventBus.ts"
import { badRequest } from "../http/ApiError.ts"
import * as Decode from "../http/Decode.ts"
import { ok, respondWith, respondWithAll } from "../http/Respond.ts"
import { ownDataInTeam } from "../access/UserParam.ts"
import { authed } from "../auth/Guards.ts"
import { TeamId, UserIdOrMe } from "../../schemas/Params.ts"
import { CategoryOrder, ChannelCategory, OrderedChannelCategories } from "../../schemas/wire/ChannelCategory.ts"
import * as CategoryRepo from "./CategoryRepo.ts"
import type * as CategoryStore from "./CategoryStore.ts"
import type { Category } from "./CategoryWire.ts"

/** Sidebar categories (mattermost-compat.md section 6): per user and team, created on first read. */

const CategoryParams = Schema.Struct({ user_id: UserIdOrMe, team_id: TeamId, category_id: Schema.String })

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

/** Categories whose content changed, for sidebar_category_updated. */
const changed = (before: ReadonlyArray<Category>, after: ReadonlyArray<Category>) => {
  const old = new Map(before.map((c) => [c.id, JSON.stringify(c)]))
  return after.filter((c) => old.has(c.id) && old.get(c.id) !== JSON.stringify(c))
}

const publishUpdated = (userId: string, teamId: string, categories: ReadonlyArray<Category>) =>
  Effect.gen(function*() {
    if (categories.length === 0) return
    const bus = yield* EventBus
    yield* bus.publish(DomainEvent.CategoriesUpdated({ categories }), { user_id: userId, team_id: teamId })
  })

const getCategories = Effect.gen(function*() {
  const { userId, teamId } = yield* ownDataInTeam
  const categories = yield* CategoryRepo.read(userId, teamId)
  return yield* respondWith(OrderedChannelCategories, { categories, order: categories.map((c) => c.id) })
})

const getOrder = Effect.gen(function*() {
  const { userId, teamId } = yield* ownDataInTeam
  const categories = yield* CategoryRepo.read(userId, teamId)
  return yield* respondWith(CategoryOrder, categories.map((c) => c.id))
})

const putOrder = Effect.gen(function*() {
  const { userId, teamId } = yield* ownDataInTeam
  const order = yield* Decode.body(OrderBody)
  yield* CategoryRepo.reorder(userId, teamId, order)
  const bus = yield* EventBus
  yield* bus.publish(DomainEvent.CategoryOrderUpdated({ order, teamId }), { user_id: userId, team_id: teamId })
  return yield* respondWith(CategoryOrder, order)
})

const findCategory = (categories: ReadonlyArray<Category>, id: string) =>
  Effect.fromNullable(categories.find((c) => c.id === id)).pipe(
    Effect.mapError(CategoryRepo.categoryMissing)
  )

const getCategory = Effect.gen(function*() {
  const { userId, teamId } = yield* ownDataInTeam
  const params = yield* Decode.params(CategoryParams)
  const categories = yield* CategoryRepo.read(userId, teamId)
  return yield* respondWith(ChannelCategory, yield* findCategory(categories, params.category_id))
})

/** A custom category (CategoryRepo.create places it). */
const createCategory = Effect.gen(function*() {
  const { userId, teamId } = yield* ownDataInTeam
  const body = yield* Decode.body(CategoryBody)
  const displayName = (body.display_name ?? "").trim()
  if (displayName === "" || [...displayName].length > 64) {
    return yield* badRequest("api.sidebar_category.invalid.app_error", "Category names must be 1 to 64 characters.")
  }
  const id = newId()
  const { before, after } = yield* CategoryRepo.create(userId, teamId, {
    id,
    displayName,
    sorting: body.sorting ?? "",
    muted: body.muted ?? false,
    collapsed: body.collapsed ?? false,
    channelIds: body.channel_ids ?? []
  })
  const bus = yield* EventBus
  yield* bus.publish(DomainEvent.CategoryCreated({ categoryId: id }), { user_id: userId, team_id: teamId })
  yield* publishUpdated(userId, teamId, changed(before, after))
  return yield* respondWith(ChannelCategory, yield* findCategory(after, id), 201)
})

const updateMany = (userId: string, teamId: string, updates: ReadonlyArray<CategoryStore.CategoryUpdate>) =>
  Effect.gen(function*() {
    const { before, after } = yield* CategoryRepo.update(userId, teamId, updates)
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
  return yield* respondWith(ChannelCategory, yield* findCategory(after, params.category_id))
})

const updateCategories = Effect.gen(function*() {
  const { userId, teamId } = yield* ownDataInTeam
  const body = yield* Decode.body(CategoriesBody)
  const after = yield* updateMany(userId, teamId, body)
  const ids = new Set(body.map((c) => c.id))
  return yield* respondWithAll(ChannelCategory, after.filter((c) => ids.has(c.id)))
})

/** Deletes a custom category; its channels return to the default categories. */
const deleteCategory = Effect.gen(function*() {
  const { userId, teamId } = yield* ownDataInTeam
  const params = yield* Decode.params(CategoryParams)
  const { before, after } = yield* CategoryRepo.remove(userId, teamId, params.category_id)
  const bus = yield* EventBus
  yield* bus.publish(DomainEvent.CategoryDeleted({ categoryId: params.category_id }), { user_id: userId, team_id: teamId })
  yield* publishUpdated(userId, teamId, changed(before, after))
  return ok()
})

const base = "/api/v4/users/:user_id/teams/:team_id/channels/categories"

export const routes = HttpRouter.empty.pipe(
  HttpRouter.get(base, authed(getCategories)),
  HttpRouter.post(base, authed(createCategory)),
  HttpRouter.put(base, authed(updateCategories)),
  HttpRouter.get(`${base}/order`, authed(getOrder)),
  HttpRouter.put(`${base}/order`, authed(putOrder)),
  HttpRouter.get(`${base}/:category_id`, authed(getCategory)),
  HttpRouter.put(`${base}/:category_id`, authed(updateCategory)),
  HttpRouter.del(`${base}/:category_id`, authed(deleteCategory))
)
