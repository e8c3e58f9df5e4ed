import { HttpServerResponse } from "@effect/platform"
import { Duration } from "effect"
import type { Session } from "./Session.ts"
import { SESSION_COOKIE } from "./Authenticate.ts"

/**
 * The cookies Mattermost sets at login: MMAUTHTOKEN (HttpOnly), and MMUSERID and MMCSRF, which the web app and
 * mobile read from script and the cookie jar. `now` (Clock.currentTimeMillis) gives their Max-Age.
 */
export const attachSessionCookies = (
  response: HttpServerResponse.HttpServerResponse,
  session: Session,
  token: string,
  siteUrl: string,
  now: number
) => {
  const secure = siteUrl.startsWith("https:")
  const maxAge = Duration.millis(Math.max(0, session.expires_at - now))
  const base = { path: "/", maxAge, expires: new Date(session.expires_at), secure, sameSite: "lax" as const }
  return response.pipe(
    HttpServerResponse.unsafeSetCookie(SESSION_COOKIE, token, { ...base, httpOnly: true }),
    HttpServerResponse.unsafeSetCookie("MMUSERID", session.user_id, base),
    HttpServerResponse.unsafeSetCookie("MMCSRF", session.props.csrf ?? "", base)
  )
}

export const clearSessionCookies = (response: HttpServerResponse.HttpServerResponse) =>
  response.pipe(
    HttpServerResponse.expireCookie(SESSION_COOKIE, { path: "/", httpOnly: true }),
    HttpServerResponse.expireCookie("MMUSERID", { path: "/" }),
    HttpServerResponse.expireCookie("MMCSRF", { path: "/" })
  )
