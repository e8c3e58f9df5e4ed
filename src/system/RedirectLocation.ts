import { Effect } from "effect"
import { OutboundHttp } from "../../layers/OutboundHttp.ts"
import { isInternal } from "../../layers/outbound/AddressPolicy.ts"

/**
 * GET /redirect_location: where a (shortened) link points, for the mobile app's link expansion. The server makes
 * the request on the user's behalf, so it goes through OutboundHttp: loopback, private, link-local and other
 * reserved addresses are refused after DNS (a name that resolves inward is refused too) unless
 * SERVICE_ALLOW_INTERNAL_CONNECTIONS lists them, as Mattermost does; a timeout and a breaker per host bound it.
 */
const TIMEOUT = "5 seconds"

/** Whether an address is one the server refuses to reach for a user (see layers/outbound/AddressPolicy.ts). */
export const isReservedAddress = (address: string): boolean => isInternal(address)

/** The Location the URL redirects to (absolute), or "" when it does not redirect or cannot be reached. */
export const redirectLocation = (target: URL): Effect.Effect<string, never, OutboundHttp> =>
  Effect.gen(function*() {
    const http = yield* OutboundHttp
    const answer = yield* http.request({ url: target.toString(), method: "HEAD", timeout: TIMEOUT, maxRedirects: 0 })
    const location = answer.status >= 300 && answer.status < 400 ? answer.headers["location"] : undefined
    return location === undefined || !URL.canParse(location, target) ? "" : new URL(location, target).toString()
  }).pipe(Effect.orElseSucceed(() => ""))
