import { HttpServerRequest } from "@effect/platform"
import { Data, Effect, Stream } from "effect"
import * as MP from "multipasta"
import * as RequestBody from "../http/RequestBody.ts"

/**
 * A multipart/form-data body as a flat stream of events, parsed as it arrives (multipasta, the parser under
 * @effect/platform). The platform's part streams never end when a body stops inside a file part (the file's content
 * waits for a chunk that cannot come), which would leave an upload hanging; here the end of the body always ends the
 * stream, with a failure when the closing boundary was not reached. Reading is pulled: the request body is read only as
 * fast as the consumer takes events.
 */
export type MultipartEvent =
  | { readonly _tag: "Field"; readonly name: string; readonly value: string }
  | { readonly _tag: "FileStart"; readonly name: string; readonly filename: string; readonly contentType: string }
  | { readonly _tag: "FileChunk"; readonly chunk: Uint8Array }
  | { readonly _tag: "FileEnd" }

export class MultipartFailure extends Data.TaggedError("MultipartFailure")<{ readonly reason: string }> {}

const describe = (error: MP.MultipartError) => {
  switch (error._tag) {
    case "ReachedLimit":
      return error.limit === "MaxFieldSize" ? "a form field is too large" : error.limit === "MaxParts" ? "too many parts" : "the body is too large"
    case "EndNotReached":
      return "the body ended before the closing boundary"
    case "InvalidBoundary":
      return "the multipart boundary is missing or invalid"
    default:
      return "the multipart body is malformed"
  }
}

export const isMultipart = (request: HttpServerRequest.HttpServerRequest) =>
  /^multipart\/form-data/i.test(request.headers["content-type"] ?? "")

export const events = (limits: { readonly maxFieldSize: number; readonly maxParts: number }) =>
  Stream.unwrap(Effect.zipWith(HttpServerRequest.HttpServerRequest, RequestBody.stream, (request, requestBody) =>
    Stream.suspend(() => {
      const pending: Array<MultipartEvent> = []
      let failure: MP.MultipartError | undefined
      let done = false
      const parser = MP.make({
        headers: request.headers as Record<string, string>,
        maxFieldSize: limits.maxFieldSize,
        maxParts: limits.maxParts,
        // Go's rule (Part.FileName() != ""): a part is a file when it names one, whatever its content type.
        isFile: (info) => (info.filename ?? "") !== "",
        onField: (info, value) => {
          pending.push({ _tag: "Field", name: info.name, value: MP.decodeField(info, value) })
        },
        onFile: (info) => {
          pending.push({ _tag: "FileStart", name: info.name, filename: info.filename ?? info.name, contentType: info.contentType })
          return (chunk) => {
            pending.push(chunk === null ? { _tag: "FileEnd" } : { _tag: "FileChunk", chunk })
          }
        },
        onError: (error) => {
          failure ??= error
        },
        onDone: () => {
          done = true
        }
      })
      const flush = (): Effect.Effect<ReadonlyArray<MultipartEvent>, MultipartFailure> =>
        failure !== undefined
          ? Effect.fail(new MultipartFailure({ reason: describe(failure) }))
          : Effect.succeed(pending.splice(0))
      const body = requestBody.pipe(
        Stream.mapError(() => new MultipartFailure({ reason: "the body could not be read" })),
        Stream.mapEffect((chunk) => Effect.suspend(() => {
          parser.write(chunk)
          return flush()
        }))
      )
      const end = Stream.fromEffect(Effect.suspend(() => {
        parser.end()
        return Effect.flatMap(flush(), (last) =>
          done ? Effect.succeed(last) : Effect.fail(new MultipartFailure({ reason: "the body ended before the closing boundary" })))
      }))
      return Stream.concat(body, end).pipe(Stream.flattenIterables)
    })))
