import { HttpRouter, HttpServerRequest } from "@effect/platform"
import { Effect, Option } from "effect"
import { publicRoute } from "../auth/Guards.ts"
import { SsoDirectory } from "../sso/SsoDirectory.ts"
import { htmlPage } from "./Html.ts"
import * as ClientApp from "./ClientApp.ts"
import { webAppIndex } from "./WebApp.ts"

/**
 * The built-in sign-in page at GET /login when a Mattermost web app build is served (SERVICE_WEBAPP_DIR): a button per active SSO provider (from
 * the public list), the password form unless SSO is required, and the end of the SSO flow: `/login?code=…` is
 * redeemed through POST /api/v1/oauth2/exchange (which sets the session cookies) and the code is first removed from
 * the address bar; `/login?error=…` shows the message. Plain HTML and a small script, no framework.
 */
const script = `
const params = new URLSearchParams(location.search);
const message = document.getElementById("message");
const show = (text) => { message.textContent = text; message.hidden = false; };
const localPath = (p) => typeof p === "string" && p.startsWith("/") && !p.startsWith("//") && !p.includes("\\\\") ? p : "/";
const next = localPath(params.get("redirect_to"));
const failure = (body, fallback) => (body && body.error && body.error.message) || (body && body.message) || fallback;
if (params.get("error")) show(params.get("error"));
const code = params.get("code");
if (code) {
  history.replaceState(null, "", "/login");
  fetch("/api/v1/oauth2/exchange", {
    method: "POST", credentials: "same-origin",
    headers: { "content-type": "application/json", "x-requested-with": "XMLHttpRequest" },
    body: JSON.stringify({ code })
  }).then(async (r) => {
    const body = await r.json().catch(() => null);
    if (!r.ok) throw new Error(failure(body, "Sign-in failed"));
    location.replace(localPath(body.redirect_uri));
  }).catch((e) => show(e.message));
}
fetch("/api/v1/oauth2/providers", { credentials: "same-origin" }).then((r) => r.ok ? r.json() : []).then((list) => {
  const box = document.getElementById("providers");
  for (const p of list) {
    const a = document.createElement("a");
    a.className = "provider";
    a.href = p.login_url + "?redirect_uri=" + encodeURIComponent(next);
    a.textContent = "Sign in with " + p.display_name;
    box.appendChild(a);
  }
}).catch(() => {});
const form = document.getElementById("password");
if (form) form.addEventListener("submit", (event) => {
  event.preventDefault();
  fetch("/api/v4/users/login", {
    method: "POST", credentials: "same-origin",
    headers: { "content-type": "application/json", "x-requested-with": "XMLHttpRequest" },
    body: JSON.stringify({ login_id: form.login_id.value, password: form.password.value })
  }).then(async (r) => {
    const body = await r.json().catch(() => null);
    if (!r.ok) throw new Error(failure(body, "Sign-in failed"));
    location.replace(next);
  }).catch((e) => show(e.message));
});
`

const passwordForm = `<form id="password">
<label>Email or username <input name="login_id" autocomplete="username" required></label>
<label>Password <input name="password" type="password" autocomplete="current-password" required></label>
<button type="submit">Sign in</button>
</form>`

const page = Effect.gen(function*() {
  const directory = yield* SsoDirectory
  const settings = yield* directory.settings
  return htmlPage((nonce) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sign in</title>
<style nonce="${nonce}">
body{font-family:system-ui,sans-serif;margin:3rem auto;max-width:24rem;padding:0 1rem}
label{display:block;margin:.5rem 0}input{display:block;width:100%;padding:.4rem;box-sizing:border-box}
.provider{display:block;margin:.5rem 0;padding:.6rem;border:1px solid #888;border-radius:4px;text-align:center;text-decoration:none;color:inherit}
#message{color:#b00020}
</style></head>
<body>
<h1>Sign in</h1>
<p id="message" role="alert" hidden></p>
<div id="providers"></div>
${settings.require_sso ? `<p id="sso-required">This server requires single sign-on.</p>` : passwordForm}
<script nonce="${nonce}">${script}</script>
</body></html>`)
})

/**
 * With a web app served (SERVICE_WEBAPP_DIR), /login is the web app's own sign-in page, except where the SSO flow
 * ends: `/login?code=…` and `/login?error=…` still get this page, which redeems the code into the session cookies
 * the web app reads and goes on to `redirect_to` (or shows the refusal), since the web app knows nothing of codes.
 */
const login = Effect.gen(function*() {
  const request = yield* HttpServerRequest.HttpServerRequest
  const index = yield* webAppIndex
  // Without a Mattermost web app, /login is our own client's page, which redeems codes and shows refusals itself.
  if (Option.isNone(index)) return yield* ClientApp.page
  const query = new URL(request.url, "http://localhost").searchParams
  return query.has("code") || query.has("error") ? yield* page : index.value
})

export const routes = HttpRouter.empty.pipe(HttpRouter.get("/login", publicRoute(login)))
