import { type HttpMethod, HttpRouter, HttpServerRequest } from "@effect/platform"
import { Chunk, Effect } from "effect"
import { publicRoute } from "../auth/Guards.ts"
import { ApiError, notImplemented } from "../http/ApiError.ts"
import { routerPath } from "./EmptyByDesign.ts"
import { MATTERMOST_ROUTES, matchMattermostRoute } from "./MattermostRoutes.ts"

/**
 * The 501 answers, and why literal path segments always win over parameters. The router (find-my-way) prefers a
 * static segment to a parameter, but only among routes that exist: if `/users/stats` is not served, a request for it
 * falls through to `/users/:user_id` and is answered as a user id. So every Mattermost route this server does not
 * serve under the same shape gets its own 501 route: a request for it reaches that route, never a parameter handler
 * of a neighbouring path. Anything else under /api/v4 ends at the last route: Mattermost's 404.
 */
export interface RouteKey {
  readonly method: string
  readonly path: string
}

/** The shape of a path: parameters anonymous, so `/users/:user_id` and `/users/{id}` are the same route. */
const shapeOf = (method: string, path: string) => `${method} ${path.replace(/\{[^}]+\}|:[A-Za-z_]+/g, ":")}`

/** The Mattermost routes `served` does not serve under the same method and shape, in router form, one per shape. */
export const unservedMattermostRoutes = (served: ReadonlyArray<RouteKey>): ReadonlyArray<RouteKey> => {
  const shapes = new Set(served.filter((r) => r.method !== "*").map((r) => shapeOf(r.method, r.path)))
  const unserved: Array<RouteKey> = []
  for (const route of MATTERMOST_ROUTES) {
    const shape = shapeOf(route.method, route.path)
    if (shapes.has(shape)) continue
    shapes.add(shape)
    unserved.push({ method: route.method, path: routerPath(route.path) })
  }
  return unserved
}

/** The catch-all: an /api/v4 path that is no route of Mattermost's is Mattermost's 404 (501 for a route it has). */
const fallback = Effect.gen(function*() {
  const request = yield* HttpServerRequest.HttpServerRequest
  const path = new URL(request.url, "http://localhost").pathname
  const route = matchMattermostRoute(request.method, path)
  if (route !== undefined) return yield* notImplemented(`${route.method} ${route.path}`)
  return yield* new ApiError({ status: 404, id: "api.context.404.app_error", message: "Sorry, we could not find the page." })
})

export const FALLBACK_PATH = "/api/v4/*"

const notServed = (template: string) => Effect.suspend(() => Effect.fail(notImplemented(template.replace(/:([A-Za-z_]+)/g, "{$1}"))))

/** `served` followed by a 501 route for each Mattermost route it lacks, then the catch-all. */
export const withFallbacks = <E, R>(served: HttpRouter.HttpRouter<E, R>) => {
  const keys = Chunk.toReadonlyArray(served.routes).map((r) => ({ method: r.method, path: r.path }))
  const fallbacks = unservedMattermostRoutes(keys).map((route) =>
    HttpRouter.route(route.method as HttpMethod.HttpMethod)(HttpRouter.empty, route.path as HttpRouter.PathInput, publicRoute(notServed(`${route.method} ${route.path}`)))
  )
  return HttpRouter.concatAll(served, ...fallbacks, HttpRouter.empty.pipe(HttpRouter.all(FALLBACK_PATH, publicRoute(fallback))))
}
