import { HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"
import { FileStore } from "../../layers/FileStore.ts"
import { notFound } from "../http/ApiError.ts"
import { isInlineMedia, servedContentType } from "./MimeTypes.ts"

/**
 * A stored blob as an HTTP response, with the headers of Mattermost's web.WriteFileResponse: the real content type
 * (script-capable types downgraded to text/plain), inline only for media, an attachment otherwise or on ?download,
 * nosniff and no framing. The size is read first so that a missing blob is a 404 rather than a cut response.
 */
export interface ServeOptions {
  readonly key: string
  readonly filename: string
  readonly contentType: string
  readonly forceDownload: boolean
  readonly lastModified: number
  readonly cacheControl?: string
}

/** Go's strconv.ParseBool truths, which is what `?download=` accepts. */
export const isTruthy = (value: string | null) => value !== null && ["1", "t", "T", "true", "TRUE", "True"].includes(value)

export const serveBlob = (options: ServeOptions) =>
  Effect.gen(function*() {
    const store = yield* FileStore
    const size = yield* store.size(options.key).pipe(
      Effect.catchTag("FileNotFound", () => notFound("api.file.file_reader.app_error", "Unable to find the file content."))
    )
    const contentType = servedContentType(options.contentType)
    const disposition = options.forceDownload || !isInlineMedia(contentType) ? "attachment" : "inline"
    const escaped = encodeURIComponent(options.filename)
    return HttpServerResponse.stream(store.stream(options.key), {
      contentType,
      contentLength: size,
      headers: {
        "content-disposition": `${disposition};filename="${escaped}"; filename*=UTF-8''${escaped}`,
        "cache-control": options.cacheControl ?? "private, no-cache",
        "last-modified": new Date(options.lastModified).toUTCString(),
        "x-content-type-options": "nosniff",
        "x-frame-options": "DENY",
        "content-security-policy": "Frame-ancestors 'none'"
      }
    })
  })
