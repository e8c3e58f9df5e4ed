import { HttpRouter, HttpServerRequest } from "@effect/platform"
import { Effect } from "effect"
import { ApiError, notImplemented } from "../http/ApiError.ts"
import { matchMattermostRoute } from "./MattermostRoutes.ts"

/**
 * The last router: an /api/v4 request that no route of ours served. If Mattermost has that route, the answer is
 * 501 with the Mattermost error body (a client can tell "not here" from "broken", and never sees a 401 that would
 * log it out); any other path stays Mattermost's 404.
 */
const fallback = Effect.gen(function*() {
  const request = yield* HttpServerRequest.HttpServerRequest
  const path = new URL(request.url, "http://localhost").pathname
  const route = matchMattermostRoute(request.method, path)
  if (route !== undefined) return yield* notImplemented(`${route.method} ${route.path}`)
  return yield* new ApiError({ status: 404, id: "api.context.404.app_error", message: "Sorry, we could not find the page." })
})

export const routes = HttpRouter.empty.pipe(HttpRouter.all("/api/v4/*", fallback))
