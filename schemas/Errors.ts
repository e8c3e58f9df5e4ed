import { Data } from "effect"

/**
 * Domain errors: what services and repos fail with, free of HTTP. Each names what went wrong in Mattermost's terms
 * (`id`, the error id clients match on, and `message`); which status and body it becomes is decided in one table at
 * the edge (`src/http/ErrorResponse.ts`), so a service reads and tests without HTTP.
 */
interface Details {
  readonly id: string
  readonly message: string
  readonly detailed?: string
}

/** The thing named does not exist, or the caller may not know it exists. */
export class NotFound extends Data.TaggedError("NotFound")<Details> {}
/** The caller is known but may not do this. */
export class Forbidden extends Data.TaggedError("Forbidden")<Details> {}
/**
 * An identity could not be verified (an identity provider's answer failed its checks): failed authentication, the
 * only 401. A missing or expired session is the edge's own (src/auth/Authenticate.ts).
 */
export class Unauthenticated extends Data.TaggedError("Unauthenticated")<Details> {}
/** The request contradicts the current state (a taken name, an identity linked elsewhere). */
export class Conflict extends Data.TaggedError("Conflict")<Details> {}
/** A value the caller sent is not acceptable; `field` names it when one field is to blame. */
export class Invalid extends Data.TaggedError("Invalid")<Details & { readonly field?: string }> {}
/** A value the caller sent is bigger than allowed. */
export class TooLarge extends Data.TaggedError("TooLarge")<Details> {}
/** Something this depends on cannot answer now; retrying later may succeed. */
export class Unavailable extends Data.TaggedError("Unavailable")<Details> {}
/** A feature an administrator has switched off (Mattermost answers these 501). */
export class Disabled extends Data.TaggedError("Disabled")<Details> {}
/**
 * An integration the server called for the user (a slash command's URL, a dialog's) failed, refused or answered
 * something unusable: the integration's failure, not the server's. `detailed` says why, for the admin.
 */
export class IntegrationFailed extends Data.TaggedError("IntegrationFailed")<Details> {}
/** An integration the server called for the user did not answer in time. */
export class IntegrationTimeout extends Data.TaggedError("IntegrationTimeout")<Details> {}

export type DomainError =
  | NotFound
  | Forbidden
  | Unauthenticated
  | Conflict
  | Invalid
  | TooLarge
  | Unavailable
  | Disabled
  | IntegrationFailed
  | IntegrationTimeout

export const isDomainError = (u: unknown): u is DomainError =>
  u instanceof NotFound || u instanceof Forbidden || u instanceof Unauthenticated || u instanceof Conflict || u instanceof Invalid ||
  u instanceof TooLarge || u instanceof Unavailable || u instanceof Disabled || u instanceof IntegrationFailed ||
  u instanceof IntegrationTimeout

/** Constructors in the shape of Mattermost's (id, message), for call sites that read best that way. */
export const notFound = (id: string, message: string) => new NotFound({ id, message })
export const forbidden = (id: string, message: string) => new Forbidden({ id, message })
export const conflict = (id: string, message: string) => new Conflict({ id, message })
export const invalid = (id: string, message: string, field?: string) => new Invalid(field === undefined ? { id, message } : { id, message, field })
export const tooLarge = (id: string, message: string) => new TooLarge({ id, message })
export const unavailable = (id: string, message: string) => new Unavailable({ id, message })
export const disabled = (id: string, message: string) => new Disabled({ id, message })
export const integrationFailed = (id: string, message: string, detailed?: string) =>
  new IntegrationFailed(detailed === undefined ? { id, message } : { id, message, detailed })
export const integrationTimeout = (id: string, message: string, detailed?: string) =>
  new IntegrationTimeout(detailed === undefined ? { id, message } : { id, message, detailed })

/** Mattermost's error for a missing or malformed parameter. */
export const invalidParam = (field: string) =>
  new Invalid({ field, id: "api.context.invalid_param.app_error", message: `Invalid or missing ${field} parameter in request URL or body.` })

/** Mattermost's generic permission error. */
export const permissionDenied = (what = "this action") =>
  new Forbidden({ id: "api.context.permissions.app_error", message: `You do not have the appropriate permissions for ${what}.` })
