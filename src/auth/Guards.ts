import { Context, Effect } from "effect"
import { type Caller, requireCaller, requireSystemAdmin } from "./Authenticate.ts"

/**
 * Who may call a route is declared where the route is, in the feature's route table:
 *
 *   HttpRouter.get("/api/v4/teams/:team_id", authed(getTeam))        a session is required
 *   HttpRouter.get("/api/v4/plugins", authed.admin(listPlugins))      a system admin's session is required
 *   HttpRouter.post("/api/v4/users/login", publicRoute(login))        no session needed (it may still look for one)
 *
 * `authed` authenticates before the handler runs, exactly as the handler's own first `yield* requireCaller` did
 * (cookie then header, CSRF for cookie writes, session activity, the 401 with the cookie cleared), and hands the
 * caller to the handler and everything it calls as `CurrentCaller`. A handler that reads `CurrentCaller` outside
 * `authed` does not type-check at the composition root: the requirement is left unprovided.
 */
export class CurrentCaller extends Context.Tag("request/CurrentCaller")<CurrentCaller, Caller>() {}

const guardedBy = <E0, R0>(guard: Effect.Effect<Caller, E0, R0>) =>
<A, E, R>(handler: Effect.Effect<A, E, R>): Effect.Effect<A, E | E0, Exclude<R, CurrentCaller> | R0> =>
  Effect.flatMap(guard, (caller) => Effect.provideService(handler, CurrentCaller, caller))

/** The handler runs for an authenticated caller; without a valid session the request is the 401. */
export const authed = Object.assign(guardedBy(requireCaller), {
  /**
   * The handler runs for a caller whose system roles grant manage_system (system admins by default, as the roles
   * table says: src/system/RoleStore.ts); others get Mattermost's 403 (api.context.permissions.app_error).
   */
  admin: guardedBy(requireSystemAdmin)
})

/**
 * The route needs no session: login, sign-up, public links, health, pages. Declared rather than implied, so that
 * every route of a table says who may call it (test/architecture/RouteGuards.test.ts). A handler that reads
 * `CurrentCaller` is refused here at compile time, on its own line.
 */
export const publicRoute = <A, E, R>(
  handler: Effect.Effect<A, E, R> & (CurrentCaller extends R ? "reads CurrentCaller: declare the route authed" : unknown)
): Effect.Effect<A, E, R> => handler
