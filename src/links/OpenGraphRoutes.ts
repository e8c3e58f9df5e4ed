import { HttpRouter } from "@effect/platform"
import { Effect, Option, Schema } from "effect"
import { disabled, invalidParam } from "../../schemas/Errors.ts"
import { OpenGraph } from "../../schemas/wire/OpenGraph.ts"
import { authed } from "../auth/Guards.ts"
import * as Decode from "../http/Decode.ts"
import { respondWith } from "../http/Respond.ts"
import { siteSwitches } from "../system/ServerSettings.ts"
import { LinkPreviews, URL_MAX } from "./LinkPreviews.ts"

/**
 * POST /api/v4/opengraph: the OpenGraph data of a URL (Mattermost's getOpenGraphMetadata), through the same guard
 * and per-node cache as posts' previews. Any signed-in user may ask, as in Mattermost; a page without OpenGraph data
 * (or that could not be fetched) answers `{"url": ""}`. 501 while link previews are switched off.
 */

const Body = Schema.Struct({ url: Schema.String })

const openGraph = Effect.gen(function*() {
  if (!(yield* siteSwitches).enableLinkPreviews) {
    return yield* disabled("api.post.link_preview_disabled.app_error", "Link previews have been disabled by the system administrator.")
  }
  const { url } = yield* Decode.body(Body)
  if (url.trim() === "" || url.length > URL_MAX) return yield* invalidParam("url")
  const data = yield* Effect.flatMap(LinkPreviews, (previews) => previews.openGraph(url.trim()))
  return yield* respondWith(OpenGraph, Option.getOrElse(data, () => ({ url: "" })))
})

export const routes = HttpRouter.empty.pipe(HttpRouter.post("/api/v4/opengraph", authed(openGraph)))
