import { HttpServerRequest } from "@effect/platform"
import { Effect, Option } from "effect"
import type { DbError } from "../../layers/Db.ts"
import { ApiError } from "../http/ApiError.ts"
import { RuntimeSettings } from "../system/RuntimeSettings.ts"
import { UserRepo } from "../users/UserRepo.ts"

/**
 * ServiceSettings.EnforceMultifactorAuthentication (with EnableMultifactorAuthentication), as Mattermost's
 * Context.MfaRequired: a caller whose account signs in with a password and has no second factor gets 403
 * api.context.mfa_required.app_error on every authenticated route except those needed to set one up. Sessions of
 * OAuth apps and bots are exempt; accounts of an SSO provider have their second factor there.
 */

/**
 * What a caller without a second factor may still do: Mattermost's APISessionRequiredMfa routes and GET /users/me.
 * Logout, config/client, license/client and ping need no session at all, so they are never refused.
 */
const SETUP_ROUTES: ReadonlyArray<{ readonly method: string; readonly path: RegExp }> = [
  { method: "GET", path: /^\/api\/v4\/users\/me$/ },
  { method: "POST", path: /^\/api\/v4\/users\/[^/]+\/mfa\/generate$/ },
  { method: "PUT", path: /^\/api\/v4\/users\/[^/]+\/mfa$/ }
]

/** Whether enforcement is on right now (this node's copy of the settings): the fast path steps aside then. */
export const mfaEnforced = (settings: { readonly enableMfa: boolean; readonly enforceMfa: boolean }) => settings.enableMfa && settings.enforceMfa

const mfaRequired = () =>
  new ApiError({
    status: 403,
    id: "api.context.mfa_required.app_error",
    message: "Multi-factor authentication is required on this server."
  })

/** The caller, or the 403 when the request needs a second factor the caller's account has not set up. */
// Generic over the caller (Authenticate's Caller, which calls this): importing its type here would make a cycle.
export const checkMfa = <C extends { readonly userId: string; readonly session: { readonly is_oauth: boolean } }>(caller: C): Effect.Effect<C, ApiError | DbError, HttpServerRequest.HttpServerRequest | RuntimeSettings | UserRepo> =>
  Effect.gen(function*() {
    if (!mfaEnforced((yield* RuntimeSettings).current()) || caller.session.is_oauth) return caller
    const request = yield* HttpServerRequest.HttpServerRequest
    const path = request.url.split("?")[0]
    if (SETUP_ROUTES.some((r) => r.method === request.method && r.path.test(path))) return caller
    const user = yield* Effect.flatMap(UserRepo, (users) => users.findCached(caller.userId))
    if (Option.isNone(user)) return caller
    const { auth_service, is_bot, mfa_active } = user.value
    if (is_bot || mfa_active || (auth_service !== "" && auth_service !== "email")) return caller
    return yield* mfaRequired()
  })
