import { HttpServerResponse } from "@effect/platform"
import { randomToken } from "../../layers/Crypto.ts"

/** Plain server-rendered pages: escaping and the headers every page carries. */
export const escapeHtml = (s: string) =>
  s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;")

/**
 * An HTML response whose inline script (if any) runs only with this response's nonce. No referrer leaves the page
 * (its URL may carry a one-time code), it cannot be framed, and it is never cached.
 */
export const htmlPage = (render: (nonce: string) => string, status = 200) => {
  const nonce = randomToken(16)
  return HttpServerResponse.text(render(nonce), {
    status,
    contentType: "text/html; charset=utf-8",
    headers: {
      "content-security-policy": `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; connect-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`,
      "referrer-policy": "no-referrer",
      "x-frame-options": "DENY",
      "x-content-type-options": "nosniff",
      "cache-control": "no-store"
    }
  })
}
