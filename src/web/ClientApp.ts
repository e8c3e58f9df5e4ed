import { HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs"
import { extname, join } from "node:path"
import { gzipSync } from "node:zlib"
import { ApiError } from "../http/ApiError.ts"
import { CLIENT_DIR } from "../Resources.ts"
import { mimeTypeFor } from "../files/MimeTypes.ts"

/**
 * The service's own web client (web/, built into web/dist by `npm ci`'s prepare step): hashed files under /static/
 * cached for a year, and index.html (never cached) for every other path that is not an API, hook, plugin, OAuth or
 * socket path, so /login, /{team}/channels/{name} or /admin_console load the app, which routes in the browser.
 * The build is read on the first request and kept in memory with a gzip copy of each text file (it is a few hundred
 * kilobytes; reading or compressing per request would be work done again and again); a page load notices a rebuild.
 */
export { CLIENT_DIR }

interface Asset {
  readonly body: Uint8Array
  readonly gzip: Uint8Array | undefined
  readonly type: string
}

interface Build {
  readonly index: Asset | undefined
  readonly assets: ReadonlyMap<string, Asset>
  readonly builtAt: number
}

const COMPRESSIBLE = new Set([".js", ".css", ".html", ".svg", ".json", ".map", ".txt"])
const EXTRA_TYPES: Record<string, string> = { ".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8", ".map": "application/json" }

const typeOf = (name: string) => {
  const ext = extname(name).toLowerCase()
  return EXTRA_TYPES[ext] ?? mimeTypeFor(ext.slice(1))
}

const asset = (file: string): Asset => {
  const body = readFileSync(file)
  const gzip = COMPRESSIBLE.has(extname(file).toLowerCase()) && body.length > 1024 ? gzipSync(body, { level: 9 }) : undefined
  return { body, gzip, type: typeOf(file) }
}

const walk = (dir: string, prefix: string, into: Map<string, Asset>) => {
  for (const name of readdirSync(dir)) {
    const full = join(dir, name)
    if (statSync(full).isDirectory()) walk(full, `${prefix}${name}/`, into)
    else into.set(`${prefix}${name}`, asset(full))
  }
}

let loaded: Build | undefined
const INDEX_FILE = join(CLIENT_DIR, "index.html")
const builtAt = () => (existsSync(INDEX_FILE) ? statSync(INDEX_FILE).mtimeMs : 0)

/**
 * The build in memory. `recheck` (page loads only, never the hashed files) notices a new build, e.g. from
 * `node web/build.mjs --watch`, with one stat of index.html.
 */
const load = (recheck = false): Build => {
  if (loaded !== undefined && !(recheck && builtAt() !== loaded.builtAt)) return loaded
  const at = builtAt()
  if (at === 0) return { index: undefined, assets: new Map(), builtAt: 0 } // not kept: a build may still come
  const assets = new Map<string, Asset>()
  walk(CLIENT_DIR, "", assets)
  loaded = { index: asset(INDEX_FILE), assets, builtAt: at }
  return loaded
}

/** Paths the client never answers: they belong to the API, integrations, plugins, SSO and sockets. */
const RESERVED = /^\/(api|plugins|hooks|static)(\/|$)|^\/oauth\/(?!.*\/complete$)/

const notFound = new ApiError({ status: 404, id: "api.context.404.app_error", message: "Sorry, we could not find the page." })

// The page's own URL may carry a one-time SSO code (/login?code=…): no referrer leaves it. Scripts and styles come
// only from this origin; images also from data:/blob: (previews of files being attached).
const INDEX_HEADERS = {
  "cache-control": "no-cache",
  "content-security-policy":
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; media-src 'self' blob:; connect-src 'self'; object-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff"
}

const NOT_BUILT = "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Team Chat</title></head><body>" +
  "<p>The web client is not built. Run <code>npm run build:web</code> (or <code>npm ci</code>), then reload. " +
  "The Mattermost mobile and desktop apps can connect to this server meanwhile.</p></body></html>"

const send = (request: HttpServerRequest.HttpServerRequest, file: Asset, headers: Record<string, string>) => {
  const gzip = file.gzip !== undefined && /\bgzip\b/.test(request.headers["accept-encoding"] ?? "")
  const body = gzip ? file.gzip! : file.body
  const all: Record<string, string> = { ...headers, vary: "Accept-Encoding" }
  if (gzip) all["content-encoding"] = "gzip"
  if (request.method === "HEAD") {
    return HttpServerResponse.empty({ status: 200, headers: { ...all, "content-type": file.type, "content-length": String(body.length) } })
  }
  return HttpServerResponse.uint8Array(body, { contentType: file.type, headers: all })
}

export const page = Effect.gen(function*() {
  const request = yield* HttpServerRequest.HttpServerRequest
  const path = new URL(request.url, "http://localhost").pathname
  if (RESERVED.test(path)) return yield* notFound
  const build = load(true)
  if (build.index === undefined) {
    return HttpServerResponse.text(NOT_BUILT, { status: 503, contentType: "text/html; charset=utf-8", headers: { "cache-control": "no-store" } })
  }
  // Files at the build's root (favicon, manifest) keep their name and a short cache.
  const rootFile = /^\/[\w.-]+\.(ico|png|svg|json|txt)$/.test(path) ? build.assets.get(path.slice(1)) : undefined
  if (rootFile !== undefined) return send(request, rootFile, { "cache-control": "public, max-age=3600" })
  return send(request, build.index, INDEX_HEADERS)
})

const staticFile = Effect.gen(function*() {
  const request = yield* HttpServerRequest.HttpServerRequest
  const name = decodeURIComponent(new URL(request.url, "http://localhost").pathname.slice("/static/".length))
  const file = load().assets.get(`static/${name}`)
  if (file === undefined) return yield* notFound
  // Built names carry a content hash (main-3FQ2X7.js): they never change, so browsers and proxies keep them a year.
  const hashed = /-[A-Z0-9]{8,}\.[a-z0-9]+$/.test(name)
  return send(request, file, {
    "cache-control": hashed ? "public, max-age=31536000, immutable" : "no-cache",
    "x-content-type-options": "nosniff"
  })
})

/**
 * The client's answer for a GET or HEAD no API route took (mounted by WebApp.ts when no Mattermost web app build is
 * configured): a built file under /static/, else the page.
 */
export const handle = Effect.gen(function*() {
  const request = yield* HttpServerRequest.HttpServerRequest
  return yield* (new URL(request.url, "http://localhost").pathname.startsWith("/static/") ? staticFile : page)
})
