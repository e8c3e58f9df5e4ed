import { HttpRouter, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Clock, Effect, Option, Schema, Stream } from "effect"
import { newId } from "../../layers/Crypto.ts"
import { FileStore } from "../../layers/FileStore.ts"
import { DomainEvent } from "../../schemas/Events.ts"
import { CustomEmoji } from "../../schemas/wire/Emoji.ts"
import type { Caller } from "../auth/Authenticate.ts"
import { authed, CurrentCaller } from "../auth/Guards.ts"
import { EventBus } from "../events/EventBus.ts"
import { ApiError, badRequest, forbidden, invalidParam, notFound, payloadTooLarge } from "../http/ApiError.ts"
import * as Decode from "../http/Decode.ts"
import { ok, respondWith, respondWithAll } from "../http/Respond.ts"
import { sniffFormat } from "../files/Images.ts"
import * as MultipartReader from "../files/MultipartReader.ts"
import * as RequestBody from "../http/RequestBody.ts"
import * as EmojiRepo from "./EmojiRepo.ts"
import { imageKey, toWire } from "./EmojiWire.ts"
import { SYSTEM_EMOJI_NAMES } from "./SystemEmojiNames.ts"
import { ListOf, MaxItems } from "../../schemas/Limits.ts"
import { runtimeSettings, type RuntimeSettings } from "../system/RuntimeSettings.ts"

/** Custom emoji (api4/emoji.go): upload, list, get by id and name, image, autocomplete, search, delete. */

/** Mattermost's MaxEmojiFileSize for the image; the request may carry a little more (the JSON part, boundaries). */
export const MAX_EMOJI_IMAGE_BYTES = 512 * 1024
const MAX_EMOJI_REQUEST_BYTES = MAX_EMOJI_IMAGE_BYTES + 16 * 1024
const NAME_PATTERN = /^[a-z0-9_+-]{1,64}$/
const AUTOCOMPLETE_LIMIT = 100
const SEARCH_LIMIT = 200

const EmojiParams = Schema.Struct({ emoji_id: Decode.Id })
const NameParams = Schema.Struct({ emoji_name: Schema.String })
const NamesBody = ListOf(Schema.String, MaxItems.emojiNames)

const EmojiPart = Schema.parseJson(Schema.Struct({ creator_id: Schema.String, name: Schema.String }))

const emojiNotFound = () => notFound("app.emoji.get.no_result", "We couldn't find the emoji.")
const tooLarge = () =>
  payloadTooLarge("api.emoji.create.too_large.app_error", `Unable to create emoji. Image must be less than ${MAX_EMOJI_IMAGE_BYTES / 1024} KiB in size.`)

export const emojiNameProblem = (name: string): Option.Option<string> => {
  if (!NAME_PATTERN.test(name)) return Option.some("Name must be 1 to 64 lowercase letters, digits, '_', '-' or '+'.")
  if (SYSTEM_EMOJI_NAMES.has(name)) return Option.some("Name conflicts with an existing system emoji name.")
  return Option.none()
}

const isGuest = (caller: Caller) => caller.roles.includes("system_guest")

/** Reads the two parts in whatever order they come; the image is cut at the limit, other parts are ignored. */
const readCreateRequest = Effect.gen(function*() {
  const request = yield* HttpServerRequest.HttpServerRequest
  if (!MultipartReader.isMultipart(request)) {
    return yield* badRequest("api.emoji.create.parse.app_error", "Unable to create emoji. Could not understand request.")
  }
  if (Number(request.headers["content-length"] ?? "0") > MAX_EMOJI_REQUEST_BYTES) return yield* tooLarge()
  let emoji: string | undefined
  let image: Uint8Array | undefined
  let imageChunks: Array<Uint8Array> | undefined
  let imageSize = 0
  const events = MultipartReader.events({ maxFieldSize: 16 * 1024, maxParts: 10 }).pipe(
    Stream.mapError(() => badRequest("api.emoji.create.parse.app_error", "Unable to create emoji. Could not understand request."))
  )
  yield* Stream.runForEach(events, (event): Effect.Effect<void, ApiError> => {
    switch (event._tag) {
      case "Field":
        if (event.name === "emoji") emoji = event.value
        return Effect.void
      case "FileStart":
        imageChunks = event.name === "image" ? [] : undefined
        imageSize = 0
        return Effect.void
      case "FileChunk":
        if (imageChunks === undefined) return Effect.void
        imageSize += event.chunk.length
        if (imageSize > MAX_EMOJI_IMAGE_BYTES) return tooLarge()
        imageChunks.push(event.chunk)
        return Effect.void
      case "FileEnd":
        if (imageChunks !== undefined) image = Buffer.concat(imageChunks)
        imageChunks = undefined
        return Effect.void
    }
  }).pipe(Effect.onError(() => RequestBody.discardRest))
  if (emoji === undefined) return yield* invalidParam("emoji")
  if (image === undefined || image.length === 0) return yield* invalidParam("image")
  const parsed = yield* Effect.mapError(Schema.decodeUnknown(EmojiPart)(emoji), () => invalidParam("emoji"))
  return { ...parsed, image }
})

const createEmoji = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  if (isGuest(caller)) return yield* forbidden("api.context.permissions.app_error", "Guests cannot create custom emoji.")
  const input = yield* readCreateRequest
  if (input.creator_id !== caller.userId) {
    return yield* forbidden("api.emoji.create.other_user.app_error", "Invalid user id.")
  }
  const problem = emojiNameProblem(input.name)
  if (Option.isSome(problem)) return yield* badRequest("model.emoji.name.app_error", problem.value)
  if (Option.isNone(sniffFormat(input.image))) {
    return yield* badRequest("api.emoji.upload.image.app_error", "Unable to create emoji. File must be a PNG, JPEG, or GIF.")
  }
  const duplicate = () =>
    badRequest("api.emoji.create.duplicate.app_error", "Unable to create emoji. Another emoji with the same name already exists.")
  if (Option.isSome(yield* EmojiRepo.findByName(input.name))) return yield* duplicate()
  const id = newId()
  const now = yield* Clock.currentTimeMillis
  const store = yield* FileStore
  // The image first: a row never names an image that is not there.
  yield* store.put(imageKey(id), input.image)
  const row = yield* EmojiRepo.insert({ id, create_at: now, update_at: now, delete_at: 0, creator_id: caller.userId, name: input.name }).pipe(
    Effect.onError(() => Effect.ignore(store.delete(imageKey(id))))
  )
  if (Option.isNone(row)) {
    yield* Effect.ignore(store.delete(imageKey(id)))
    return yield* duplicate()
  }
  const wire = toWire(row.value)
  const bus = yield* EventBus
  yield* bus.publish(DomainEvent.EmojiAdded({ emoji: wire }), { broadcast_to_all: true })
  return yield* respondWith(CustomEmoji, wire, 201)
})

const ListQuery = Schema.Struct({
  page: Decode.QueryInt(0, { min: 0 }),
  per_page: Decode.QueryInt(60, { min: 0, max: 200 }),
  sort: Schema.optionalWith(Schema.Literal("", "name"), { default: () => "" as const })
})

const listEmoji = Effect.gen(function*() {
  const query = yield* Decode.query(ListQuery)
  const rows = yield* EmojiRepo.list(query.page * query.per_page, query.per_page, query.sort === "name")
  return yield* respondWithAll(CustomEmoji, rows.map(toWire))
})

const getEmoji = Effect.gen(function*() {
  const { emoji_id } = yield* Decode.params(EmojiParams)
  const row = yield* EmojiRepo.findById(emoji_id)
  return Option.isNone(row) ? yield* emojiNotFound() : yield* respondWith(CustomEmoji, toWire(row.value))
})

const getEmojiByName = Effect.gen(function*() {
  const { emoji_name } = yield* Decode.params(NameParams)
  const row = yield* EmojiRepo.findByName(emoji_name)
  return Option.isNone(row) ? yield* emojiNotFound() : yield* respondWith(CustomEmoji, toWire(row.value))
})

const getEmojiByNames = Effect.gen(function*() {
  const names = yield* Decode.body(NamesBody)
  const rows = yield* EmojiRepo.findByNames([...new Set(names)])
  return yield* respondWithAll(CustomEmoji, rows.map(toWire))
})

const CONTENT_TYPES = { png: "image/png", jpeg: "image/jpeg", gif: "image/gif" } as const

const getEmojiImage = Effect.gen(function*() {
  const { emoji_id } = yield* Decode.params(EmojiParams)
  if (Option.isNone(yield* EmojiRepo.findById(emoji_id))) return yield* emojiNotFound()
  const store = yield* FileStore
  const bytes = yield* store.get(imageKey(emoji_id)).pipe(Effect.catchTag("FileNotFound", () => emojiNotFound()))
  const format = Option.getOrElse(sniffFormat(bytes), () => "png" as const)
  return HttpServerResponse.uint8Array(bytes, {
    contentType: CONTENT_TYPES[format],
    headers: { "cache-control": "max-age=2592000, private", "x-content-type-options": "nosniff" }
  })
})

const AutocompleteQuery = Schema.Struct({ name: Schema.String })

const autocompleteEmoji = Effect.gen(function*() {
  const { name } = yield* Decode.query(AutocompleteQuery)
  if (name.trim() === "") return yield* invalidParam("name")
  const rows = yield* EmojiRepo.search(name.trim().toLowerCase(), true, AUTOCOMPLETE_LIMIT)
  return yield* respondWithAll(CustomEmoji, rows.map(toWire))
})

const SearchBody = Schema.Struct({
  term: Schema.String,
  prefix_only: Schema.optionalWith(Schema.Union(Schema.Boolean, Schema.String), { default: () => false })
})

const searchEmoji = Effect.gen(function*() {
  const body = yield* Decode.body(SearchBody)
  const term = body.term.trim().toLowerCase()
  if (term === "") return yield* invalidParam("term")
  const prefixOnly = body.prefix_only === true || body.prefix_only === "true"
  const rows = yield* EmojiRepo.search(term, prefixOnly, SEARCH_LIMIT)
  return yield* respondWithAll(CustomEmoji, rows.map(toWire))
})

/** Deleting an emoji also removes the reactions that use it; each removal is published after the commit. */
const deleteEmoji = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const { emoji_id } = yield* Decode.params(EmojiParams)
  const row = yield* EmojiRepo.findById(emoji_id)
  if (Option.isNone(row)) return yield* emojiNotFound()
  if (row.value.creator_id !== caller.userId && !caller.isSystemAdmin) {
    return yield* forbidden("api.emoji.delete.permissions.app_error", "Inappropriate permissions to delete emoji.")
  }
  const now = yield* Clock.currentTimeMillis
  const removed = yield* EmojiRepo.softDelete(emoji_id, now)
  if (Option.isNone(removed)) return yield* emojiNotFound()
  const store = yield* FileStore
  yield* Effect.ignore(store.delete(imageKey(emoji_id)))
  const bus = yield* EventBus
  yield* Effect.forEach(removed.value, (r) =>
    bus.publish(DomainEvent.ReactionRemoved({
      reaction: {
        user_id: r.user_id,
        post_id: r.post_id,
        emoji_name: r.emoji_name,
        create_at: Number(r.create_at),
        update_at: Number(r.update_at),
        delete_at: now,
        remote_id: "",
        channel_id: r.channel_id
      }
    }), { channel_id: r.channel_id }), { discard: true })
  return ok()
})

/**
 * ServiceSettings.EnableCustomEmoji off: every custom emoji endpoint answers Mattermost's 501, before any permission
 * is asked (system emoji stay, the clients hold them).
 */
const whenEnabled = <A, E, R>(handler: Effect.Effect<A, E, R>): Effect.Effect<A, E | ApiError, R | RuntimeSettings> =>
  Effect.flatMap(runtimeSettings, (settings): Effect.Effect<A, E | ApiError, R> =>
    settings.enableCustomEmoji
      ? handler
      : Effect.fail(new ApiError({ status: 501, id: "api.emoji.disabled.app_error", message: "Custom emoji have been disabled by the system admin." })))

export const routes = HttpRouter.empty.pipe(
  HttpRouter.post("/api/v4/emoji", authed(whenEnabled(createEmoji))),
  HttpRouter.get("/api/v4/emoji", authed(whenEnabled(listEmoji))),
  HttpRouter.get("/api/v4/emoji/autocomplete", authed(whenEnabled(autocompleteEmoji))),
  HttpRouter.post("/api/v4/emoji/names", authed(whenEnabled(getEmojiByNames))),
  HttpRouter.post("/api/v4/emoji/search", authed(whenEnabled(searchEmoji))),
  HttpRouter.get("/api/v4/emoji/name/:emoji_name", authed(whenEnabled(getEmojiByName))),
  HttpRouter.get("/api/v4/emoji/:emoji_id", authed(whenEnabled(getEmoji))),
  HttpRouter.get("/api/v4/emoji/:emoji_id/image", authed(whenEnabled(getEmojiImage))),
  HttpRouter.del("/api/v4/emoji/:emoji_id", authed(whenEnabled(deleteEmoji)))
)
