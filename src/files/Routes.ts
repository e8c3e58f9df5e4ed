import { HttpRouter, HttpServerRequest } from "@effect/platform"
import { Effect, Option, Schema } from "effect"
import { FileInfo, FilePublicLink, FileUploadResponse } from "../../schemas/wire/FileInfo.ts"
import { createHash } from "node:crypto"
import { safeEqual } from "../../layers/Crypto.ts"
import { Access } from "../access/Access.ts"
import type { Caller } from "../auth/Authenticate.ts"
import { authed, CurrentCaller, publicRoute } from "../auth/Guards.ts"
import { AppConfig } from "../Config.ts"
import { badRequest, forbidden, notFound } from "../http/ApiError.ts"
import * as Decode from "../http/Decode.ts"
import { respondWith, respondWithAll } from "../http/Respond.ts"
import { toWire } from "./FileInfo.ts"
import * as FileInfoRepo from "./FileInfoRepo.ts"
import { FileSettings } from "./FileSettings.ts"
import { isTruthy, serveBlob } from "./Serve.ts"
import { upload } from "./Upload.ts"
import { PostParams } from "../../schemas/Params.ts"

/** Files: upload, download, thumbnail, preview, info, public links and the files of a post (api4/file.go). */

const FileParams = Schema.Struct({ file_id: Decode.Id })

const fileNotFound = () => notFound("app.file_info.get.app_error", "Unable to get the file info.")

/** The file, when it is live and its post (if any) is not deleted. */
const liveFile = (fileId: string) =>
  Effect.flatMap(FileInfoRepo.findById(fileId), (found) =>
    Option.isNone(found) || Number(found.value.delete_at) > 0 || Number(found.value.post_delete_at) > 0
      ? fileNotFound()
      : Effect.succeed(found.value))

/** The uploader may always read their file; anyone else needs read access to its channel (Mattermost's rule). */
const readableFile = (caller: Caller, fileId: string) =>
  Effect.gen(function*() {
    const file = yield* liveFile(fileId)
    if (file.creator_id !== caller.userId) {
      const access = yield* Access
      yield* access.channel(caller, file.channel_id, "read")
    }
    return file
  })

const downloadRequested = Effect.map(
  HttpServerRequest.HttpServerRequest,
  (request) => isTruthy(new URL(request.url, "http://localhost").searchParams.get("download"))
)

const uploadFiles = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const settings = yield* Effect.flatMap(FileSettings, (s) => s.current)
  const { rows, clientIds } = yield* upload(caller, settings.maxFileSize)
  return yield* respondWith(FileUploadResponse, { file_infos: rows.map(toWire), client_ids: clientIds }, 201)
})

const getFile = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const { file_id } = yield* Decode.params(FileParams)
  const file = yield* readableFile(caller, file_id)
  return yield* serveBlob({
    key: file.path,
    filename: file.name,
    contentType: file.mime_type,
    forceDownload: yield* downloadRequested,
    lastModified: Number(file.update_at)
  })
})

const rendition = (kind: "thumbnail" | "preview") =>
  Effect.gen(function*() {
    const caller = yield* CurrentCaller
    const { file_id } = yield* Decode.params(FileParams)
    const file = yield* readableFile(caller, file_id)
    const key = kind === "thumbnail" ? file.thumbnail_path : file.preview_path
    // A PDF has no preview image; its preview is the document itself, inline and framable by the web client's own
    // pages (Mattermost's /preview answers 400 here; its clients ask for a preview only when has_preview_image says so).
    if (key === "" && kind === "preview" && file.mime_type === "application/pdf") {
      return yield* serveBlob({
        key: file.path,
        filename: file.name,
        contentType: "application/pdf",
        forceDownload: yield* downloadRequested,
        lastModified: Number(file.update_at),
        embeddable: true
      })
    }
    if (key === "") {
      return yield* kind === "thumbnail"
        ? badRequest("api.file.get_file_thumbnail.no_thumbnail.app_error", "File doesn't have a thumbnail image.")
        : badRequest("api.file.get_file_preview.no_preview.app_error", "File doesn't have a preview image.")
    }
    return yield* serveBlob({
      key,
      filename: file.name,
      contentType: "image/jpeg",
      forceDownload: yield* downloadRequested,
      lastModified: Number(file.update_at)
    })
  })

const getFileInfo = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const { file_id } = yield* Decode.params(FileParams)
  return yield* respondWith(FileInfo, toWire(yield* readableFile(caller, file_id)))
})

/** Mattermost's GeneratePublicLinkHash: base64url(sha256(salt ‖ file id)), unpadded. */
const publicLinkHash = (fileId: string, salt: string) =>
  createHash("sha256").update(salt).update(fileId).digest("base64url")

const publicLinksDisabled = () => forbidden("api.file.get_public_link.disabled.app_error", "Public links have been disabled.")

const getFileLink = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const { file_id } = yield* Decode.params(FileParams)
  const settings = yield* FileSettings
  if (!(yield* settings.current).enablePublicLink) return yield* publicLinksDisabled()
  const file = yield* readableFile(caller, file_id)
  if (file.post_id === "") {
    return yield* badRequest("api.file.get_public_link.no_post.app_error", "Unable to get a public link for a file that is not attached to a post.")
  }
  const config = yield* AppConfig
  const hash = publicLinkHash(file.id, yield* settings.publicLinkSalt)
  return yield* respondWith(FilePublicLink, { link: `${config.siteUrl}/files/${file.id}/public?h=${hash}` })
})

/** The target of public links: anonymous, authorised by the hash alone. */
const getPublicFile = Effect.gen(function*() {
  const { file_id } = yield* Decode.params(FileParams)
  const settings = yield* FileSettings
  if (!(yield* settings.current).enablePublicLink) return yield* publicLinksDisabled()
  const file = yield* liveFile(file_id)
  const request = yield* HttpServerRequest.HttpServerRequest
  const hash = new URL(request.url, "http://localhost").searchParams.get("h") ?? ""
  if (file.post_id === "" || hash === "" || !safeEqual(hash, publicLinkHash(file.id, yield* settings.publicLinkSalt))) {
    return yield* badRequest("api.file.get_file.public_invalid.app_error", "The public link does not appear to be valid.")
  }
  return yield* serveBlob({
    key: file.path,
    filename: file.name,
    contentType: file.mime_type,
    forceDownload: false,
    lastModified: Number(file.update_at)
  })
})

const getPostFileInfos = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const { post_id } = yield* Decode.params(PostParams)
  const access = yield* Access
  yield* access.post(caller, post_id, "read")
  const rows = yield* FileInfoRepo.forPosts([post_id])
  return yield* respondWithAll(FileInfo, rows.map(toWire))
})

export const routes = HttpRouter.empty.pipe(
  HttpRouter.post("/api/v4/files", authed(uploadFiles)),
  HttpRouter.get("/api/v4/files/:file_id", authed(getFile)),
  HttpRouter.get("/api/v4/files/:file_id/thumbnail", authed(rendition("thumbnail"))),
  HttpRouter.get("/api/v4/files/:file_id/preview", authed(rendition("preview"))),
  HttpRouter.get("/api/v4/files/:file_id/info", authed(getFileInfo)),
  HttpRouter.get("/api/v4/files/:file_id/link", authed(getFileLink)),
  HttpRouter.get("/api/v4/posts/:post_id/files/info", authed(getPostFileInfos)),
  HttpRouter.get("/files/:file_id/public", publicRoute(getPublicFile))
)
