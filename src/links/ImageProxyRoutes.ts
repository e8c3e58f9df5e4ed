import { HttpRouter, HttpServerResponse } from "@effect/platform"
import { Effect, Option, Schema } from "effect"
import { invalidParam, notFound } from "../../schemas/Errors.ts"
import { authed } from "../auth/Guards.ts"
import * as Decode from "../http/Decode.ts"
import { ImageProxy } from "./ImageProxy.ts"
import { URL_MAX } from "./LinkPreviews.ts"

/**
 * GET /api/v4/image?url=…: a remote picture through the server (ImageProxy.ts), for signed-in users as Mattermost's.
 * The answer may be cached by the browser for a day; it is served as an image only (nosniff, a CSP that runs nothing).
 */

const Query = Schema.Struct({ url: Schema.optional(Schema.String) })

const image = Effect.gen(function*() {
  const { url } = yield* Decode.query(Query)
  const target = (url ?? "").trim()
  if (target === "" || target.length > URL_MAX || !/^https?:\/\//i.test(target)) return yield* invalidParam("url")
  const found = yield* Effect.flatMap(ImageProxy, (proxy) => proxy.image(target))
  if (Option.isNone(found)) return yield* notFound("api.image.get.app_error", "The image could not be fetched.")
  return HttpServerResponse.uint8Array(found.value.bytes, {
    contentType: found.value.contentType,
    headers: {
      "cache-control": "private, max-age=86400",
      "x-content-type-options": "nosniff",
      "content-security-policy": "default-src 'none'; sandbox",
      "content-disposition": "inline"
    }
  })
})

export const routes = HttpRouter.empty.pipe(HttpRouter.get("/api/v4/image", authed(image)))
