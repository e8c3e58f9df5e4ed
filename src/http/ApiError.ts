import { Data } from "effect"

/**
 * The one error type handlers fail with. `id` is the Mattermost error id (e.g. `api.context.session_expired.app_error`);
 * the edge renders it as the Mattermost body on /api/v4 and as the native body on /api/v1.
 */
export class ApiError extends Data.TaggedError("ApiError")<{
  readonly status: number
  readonly id: string
  readonly message: string
  readonly detailed?: string
  /** Extra response headers, such as Retry-After. */
  readonly headers?: Record<string, string>
}> {}

const make = (status: number) => (id: string, message: string, detailed?: string) =>
  new ApiError({ status, id, message, detailed })

export const badRequest = make(400)
/** Only for failed authentication: Mattermost clients log the user out on any 401. */
export const unauthorized = make(401)
export const forbidden = make(403)
export const notFound = make(404)
export const conflict = make(409)
export const payloadTooLarge = make(413)
export const unavailable = make(503)
export const internal = make(500)

export const invalidParam = (name: string) =>
  badRequest(`api.context.invalid_param.app_error`, `Invalid or missing ${name} parameter in request URL or body.`)

export const sessionRequired = () =>
  unauthorized("api.context.session_expired.app_error", "Invalid or expired session, please login again.")

export const permissionDenied = (what = "this action") =>
  forbidden("api.context.permissions.app_error", `You do not have the appropriate permissions for ${what}.`)

export const notImplemented = (what: string) =>
  new ApiError({ status: 501, id: "api.not_implemented.app_error", message: `${what} is not implemented by this server.` })
