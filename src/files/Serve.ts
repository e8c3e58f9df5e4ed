import { HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect, Option } from "effect"
import { type ByteRange, FileStore } from "../../layers/FileStore.ts"
import { notFound } from "../../schemas/Errors.ts"
import { isInlineMedia, servedContentType } from "./MimeTypes.ts"

/**
 * A stored blob as an HTTP response, with the headers of Mattermost's web.WriteFileResponse: the real content type
 * (script-capable types downgraded to text/plain), inline only for media, an attachment otherwise or on ?download,
 * nosniff and no framing, and single byte ranges (206). The size is read first so that a missing blob is a 404 rather
 * than a cut response.
 */
export interface ServeOptions {
  readonly key: string
  readonly filename: string
  readonly contentType: string
  readonly forceDownload: boolean
  readonly lastModified: number
  readonly cacheControl?: string
  /**
   * Inline and framable by the service's own pages (not by other sites): the web client's PDF viewer, which shows the
   * file in the browser's built-in viewer in an iframe. Only for types that viewer draws without running anything in
   * this origin (PDF); nosniff keeps the browser from reading the bytes as anything else.
   */
  readonly embeddable?: boolean
}

/** Go's strconv.ParseBool truths, which is what `?download=` accepts. */
export const isTruthy = (value: string | null) => value !== null && ["1", "t", "T", "true", "TRUE", "True"].includes(value)

/**
 * One `bytes=` range of a Range header against the size, as Go's http.ServeContent reads it: `start-end`, `start-`
 * or `-suffix`. None when there is no usable single range (the whole content is sent); "unsatisfiable" for a range
 * that starts beyond the end.
 */
export const parseRange = (header: string | undefined, size: number): Option.Option<ByteRange | "unsatisfiable"> => {
  const match = /^bytes=(\d*)-(\d*)$/.exec(header?.trim() ?? "")
  if (match === null || (match[1] === "" && match[2] === "")) return Option.none()
  if (match[1] === "") {
    const suffix = Number(match[2])
    return suffix === 0 ? Option.some("unsatisfiable") : Option.some({ start: Math.max(0, size - suffix), end: size - 1 })
  }
  const start = Number(match[1])
  if (start >= size) return Option.some("unsatisfiable")
  const end = match[2] === "" ? size - 1 : Math.min(Number(match[2]), size - 1)
  return end < start ? Option.none() : Option.some({ start, end })
}

export const serveBlob = (options: ServeOptions) =>
  Effect.gen(function*() {
    const store = yield* FileStore
    const request = yield* HttpServerRequest.HttpServerRequest
    const size = yield* store.size(options.key).pipe(
      Effect.catchTag("FileNotFound", () => notFound("api.file.file_reader.app_error", "Unable to find the file content."))
    )
    const contentType = servedContentType(options.contentType)
    const inline = options.embeddable === true || isInlineMedia(contentType)
    const disposition = options.forceDownload || !inline ? "attachment" : "inline"
    const escaped = encodeURIComponent(options.filename)
    const headers = {
      "accept-ranges": "bytes",
      "content-disposition": `${disposition};filename="${escaped}"; filename*=UTF-8''${escaped}`,
      "cache-control": options.cacheControl ?? "private, no-cache",
      "last-modified": new Date(options.lastModified).toUTCString(),
      "x-content-type-options": "nosniff",
      "x-frame-options": options.embeddable === true ? "SAMEORIGIN" : "DENY",
      "content-security-policy": options.embeddable === true ? "frame-ancestors 'self'" : "Frame-ancestors 'none'"
    }
    // Video players (AVPlayer on iOS) read media in ranges and will not play from a server that ignores them.
    const range = parseRange(request.headers["range"], size)
    if (Option.isSome(range) && range.value === "unsatisfiable") {
      return HttpServerResponse.empty({ status: 416, headers: { ...headers, "content-range": `bytes */${size}` } })
    }
    if (Option.isSome(range) && range.value !== "unsatisfiable") {
      const { start, end } = range.value
      return HttpServerResponse.stream(store.stream(options.key, range.value), {
        status: 206,
        contentType,
        contentLength: end - start + 1,
        headers: { ...headers, "content-range": `bytes ${start}-${end}/${size}` }
      })
    }
    return HttpServerResponse.stream(store.stream(options.key), { contentType, contentLength: size, headers })
  })
