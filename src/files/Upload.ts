import { HttpServerRequest } from "@effect/platform"
import { Clock, Effect, Fiber, Option, Queue, Stream } from "effect"
import { newId } from "../../layers/Crypto.ts"
import { Db } from "../../layers/Db.ts"
import { FileStore } from "../../layers/FileStore.ts"
import { Access } from "../access/Access.ts"
import type { Caller } from "../auth/Authenticate.ts"
import { type TooLarge, invalid, invalidParam, tooLarge as tooLargeError, permissionDenied } from "../../schemas/Errors.ts"
import { isId } from "../../schemas/Params.ts"
import type { FileInfoRow } from "./FileInfo.ts"
import * as FileInfoRepo from "./FileInfoRepo.ts"
import { imageFields } from "./Renditions.ts"
import { mimeTypeFor } from "./MimeTypes.ts"
import * as MultipartReader from "./MultipartReader.ts"
import * as RequestBody from "../http/RequestBody.ts"

/**
 * POST /files, both of Mattermost's forms (api4/file.go uploadFileStream):
 * - multipart: `channel_id`, `client_ids` (one per file, matched by order) and file parts, in any order. Mobile apps
 *   send the files before channel_id, so file parts are streamed into the store as they arrive and the channel is
 *   checked when its id is known; whatever was stored is removed if the request then fails.
 * - simple: the raw body is the file, with `channel_id`, `filename` and optional `client_id` in the query.
 * Each file is limited to MaxFileSize while it streams (413, nothing kept). Images get width and height, a thumbnail,
 * a preview and a mini preview. The rows are written in one transaction once every file is stored.
 */

interface Stored {
  readonly id: string
  readonly key: string
  readonly name: string
  readonly extension: string
  readonly size: number
}

const READ_ERROR = "api.file.upload_file.read_request.app_error"
/** Mattermost's maxMultipartFormDataBytes: form values are ids, never large. */
const MAX_FIELD_BYTES = 10 * 1024
/** Far above any client's batch (the apps attach at most 10 files to a post), far below a parser flood. */
const MAX_PARTS = 1000

const tooLarge = (name: string, limit: number) =>
  tooLargeError(
    "api.file.upload_file.too_large_detailed.app_error",
    `Unable to upload file ${name}. It exceeds the maximum allowed ${limit} bytes.`
  )

/** The last path segment of what the client called the file; clients send bare names, browsers sometimes paths. */
const cleanName = (raw: string) => raw.split(/[\\/]/).pop()?.trim() ?? ""

const extensionOf = (name: string) => {
  const dot = name.lastIndexOf(".")
  return dot < 0 ? "" : name.slice(dot + 1).toLowerCase()
}

const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10).replaceAll("-", "")

/** Cuts the stream with a 413 as soon as it passes the limit, before the excess is written anywhere. */
const limited = <E>(content: Stream.Stream<Uint8Array, E>, name: string, limit: number) =>
  Stream.mapAccumEffect(content, 0, (total, chunk): Effect.Effect<readonly [number, Uint8Array], TooLarge> => {
    const next = total + chunk.length
    return next > limit ? Effect.fail(tooLarge(name, limit)) : Effect.succeed([next, chunk] as const)
  })

const makeSession = (caller: Caller, maxFileSize: number) =>
  Effect.gen(function*() {
    const store = yield* FileStore
    const access = yield* Access
    const now = yield* Clock.currentTimeMillis
    const day = dayOf(now)
    const written: Array<string> = []

    const checkChannel = (channelId: string) =>
      Effect.gen(function*() {
        if (!isId(channelId)) return yield* invalidParam("channel_id")
        const granted = yield* access.channel(caller, channelId, "write")
        if (granted.channel.delete_at > 0) return yield* permissionDenied("an archived channel")
      })

    const newFile = (rawName: string) =>
      Effect.gen(function*() {
        const name = cleanName(rawName)
        if (name === "" || name === "." || name === "..") return yield* invalidParam("filename")
        const id = newId()
        const key = `uploads/${day}/${caller.userId}/${id}/original`
        written.push(key)
        return { id, key, name, extension: extensionOf(name) }
      })

    /** Streams one file into the store: the simple form, whose body is the file. */
    const storeFile = <E>(rawName: string, content: Stream.Stream<Uint8Array, E>) =>
      Effect.gen(function*() {
        const file = yield* newFile(rawName)
        const size = yield* store.put(file.key, limited(content, file.name, maxFileSize))
        return { ...file, size } satisfies Stored
      })

    /**
     * A file whose chunks are pushed as the multipart parser finds them: a writer fiber streams them into the store
     * through a small queue, so the body is read no faster than the store writes.
     */
    const openFile = (rawName: string) =>
      Effect.gen(function*() {
        const file = yield* newFile(rawName)
        const queue = yield* Queue.bounded<Option.Option<Uint8Array>>(8)
        const content = Stream.fromQueue(queue).pipe(
          Stream.takeWhile(Option.isSome),
          Stream.map((chunk) => chunk.value)
        )
        const writer = yield* Effect.fork(store.put(file.key, content))
        // A writer that failed stops taking chunks; its failure then ends the upload instead of a full queue.
        const offer = (item: Option.Option<Uint8Array>) =>
          Effect.raceFirst(Effect.asVoid(Queue.offer(queue, item)), Effect.zipRight(Fiber.join(writer), Effect.never))
        let size = 0
        return {
          write: (chunk: Uint8Array) => {
            size += chunk.length
            return size > maxFileSize ? tooLarge(file.name, maxFileSize) : offer(Option.some(chunk))
          },
          close: Effect.zipRight(offer(Option.none()), Effect.map(Fiber.join(writer), (size): Stored => ({ ...file, size }))),
          abort: Effect.asVoid(Fiber.interrupt(writer))
        }
      })

    /** Renditions for images, then the rows in one transaction. */
    const finish = (channelId: string, files: ReadonlyArray<Stored>) =>
      Effect.gen(function*() {
        const rows: Array<Omit<FileInfoRow, "delete_at">> = []
        for (const [index, file] of files.entries()) {
          // One millisecond apart, as separate uploads would be: a post lists its files in upload order.
          const at = now + index
          const base = {
            id: file.id,
            creator_id: caller.userId,
            post_id: "",
            channel_id: channelId,
            create_at: at,
            update_at: at,
            path: file.key,
            name: file.name,
            extension: file.extension,
            size: file.size,
            mime_type: mimeTypeFor(file.extension)
          }
          rows.push({ ...base, ...(yield* imageFields(file.key, file.extension, written)) })
        }
        const db = yield* Db
        yield* db.transaction(FileInfoRepo.insertMany(rows))
        return rows.map((r): FileInfoRow => ({ ...r, delete_at: 0 }))
      })

    const discard = Effect.forEach(written, (key) => Effect.ignore(store.delete(key)), { discard: true })

    return { checkChannel, storeFile, openFile, finish, discard }
  })

type Session = Effect.Effect.Success<ReturnType<typeof makeSession>>

const multipart = (session: Session) =>
  Effect.gen(function*() {
    let channelId: string | undefined
    let channelChecked = false
    const clientIds: Array<string> = []
    const files: Array<Stored> = []
    let current: Effect.Effect.Success<ReturnType<Session["openFile"]>> | undefined

    const onField = (name: string, raw: string) =>
      Effect.gen(function*() {
        const value = raw.trim()
        if (name === "channel_id") {
          if (channelId !== undefined && channelId !== value) {
            return yield* invalid("api.file.upload_file.multiple_channel_ids.app_error", "Unable to upload files to more than one channel.")
          }
          channelId = value
          if (!channelChecked) {
            yield* session.checkChannel(value)
            channelChecked = true
          }
        } else if (name === "client_ids") {
          clientIds.push(value)
        } else {
          return yield* invalidParam(name)
        }
      })

    const events = MultipartReader.events({ maxFieldSize: MAX_FIELD_BYTES, maxParts: MAX_PARTS }).pipe(
      Stream.mapError((e) => invalid(READ_ERROR, `Unable to read the upload: ${e.reason}.`))
    )
    yield* Stream.runForEach(events, (event) =>
      Effect.gen(function*() {
        switch (event._tag) {
          case "Field":
            return yield* onField(event.name, event.value)
          case "FileStart":
            current = yield* session.openFile(event.filename)
            return
          case "FileChunk":
            if (current !== undefined) yield* current.write(event.chunk)
            return
          case "FileEnd":
            if (current !== undefined) files.push(yield* current.close)
            current = undefined
            return
        }
      })).pipe(Effect.onError(() => current === undefined ? Effect.void : current.abort))
    if (channelId === undefined) return yield* invalidParam("channel_id")
    if (!channelChecked) yield* session.checkChannel(channelId)
    if (files.length === 0) return yield* invalid("api.file.upload_file.no_files.app_error", "No files were sent in the upload request.")
    if (clientIds.length > 0 && clientIds.length !== files.length) {
      return yield* invalid(
        "api.file.upload_file.incorrect_number_of_client_ids.app_error",
        `Unable to upload files: ${clientIds.length} client ids for ${files.length} files.`
      )
    }
    const rows = yield* session.finish(channelId, files)
    return { rows, clientIds }
  })

const simple = (session: Session, maxFileSize: number) =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const query = new URL(request.url, "http://localhost").searchParams
    const channelId = query.get("channel_id") ?? ""
    const filename = query.get("filename") ?? ""
    const clientId = query.get("client_id") ?? ""
    if (channelId === "") return yield* invalidParam("channel_id")
    if (filename === "") return yield* invalidParam("filename")
    yield* session.checkChannel(channelId)
    const declared = Number(request.headers["content-length"] ?? "")
    if (Number.isFinite(declared) && declared > maxFileSize) return yield* tooLarge(cleanName(filename), maxFileSize)
    const body = (yield* RequestBody.stream).pipe(Stream.mapError(() => invalid(READ_ERROR, "Unable to read the request body.")))
    const file = yield* session.storeFile(filename, body)
    const rows = yield* session.finish(channelId, [file])
    return { rows, clientIds: clientId === "" ? [] : [clientId] }
  })

export const upload = (caller: Caller, maxFileSize: number) =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    if (request.headers["content-length"] === "0") {
      return yield* invalid(READ_ERROR, "Content-Length should not be 0.")
    }
    const session = yield* makeSession(caller, maxFileSize)
    return yield* (MultipartReader.isMultipart(request) ? multipart(session) : simple(session, maxFileSize)).pipe(
      Effect.onError(() => Effect.zipRight(session.discard, RequestBody.discardRest))
    )
  })
