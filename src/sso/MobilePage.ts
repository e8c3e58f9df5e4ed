import type { ApiError } from "../http/ApiError.ts"
import { escapeHtml, htmlPage } from "../web/Html.ts"
import type { MobileStart } from "./FlowStore.ts"

/**
 * What the mobile app's authentication browser shows when a mobile SSO flow fails after the provider (Mattermost
 * renders a page too): the message, and a link back to the app's callback, which closes the browser session.
 */
export const mobileErrorPage = (error: ApiError, mobile: MobileStart) =>
  htmlPage(
    (nonce) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sign-in failed</title><style nonce="${nonce}">body{font-family:system-ui,sans-serif;margin:3rem auto;max-width:28rem;padding:0 1rem}</style></head>
<body><h1>Sign-in failed</h1><p id="error">${escapeHtml(error.message)}</p>
<p><a href="${escapeHtml(mobile.redirect_to)}">Return to the app</a></p></body></html>`,
    error.status
  )
