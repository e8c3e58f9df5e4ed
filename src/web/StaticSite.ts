import { HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { RouteNotFound } from "@effect/platform/HttpServerError"
import { Effect, Option } from "effect"
import { createHash } from "node:crypto"
import { readFile, stat } from "node:fs/promises"
import { extname, join, resolve, sep } from "node:path"
import { promisify } from "node:util"
import { brotliCompress, constants as zlib, gzip } from "node:zlib"
import { mimeTypeFor } from "../files/MimeTypes.ts"

/**
 * Serving a built single-page application from a directory: its files, and its index page for every application
 * path so that the client-side router takes over. Generic over the build (the Mattermost web app's root.html and
 * /static/ files, or another client's index.html and assets): the rules say where the files are mounted, how long
 * each may be cached, which paths are never the application's, and which headers go with the index.
 *
 * Written here rather than with a static-file middleware because none fits the router and its rules: a file answer,
 * an index answer, and precompressed or compressed-once bodies (brotli or gzip as the client accepts), with an ETag
 * so that revalidating the no-cache index costs a 304.
 */
export interface SiteRules {
  /** The build directory. */
  readonly directory: string
  /** The page every application path gets: `root.html`, `index.html`. */
  readonly index: string
  /** URL prefix the directory's files are served under (`/static`), or `""` for files at the site root. */
  readonly assetPrefix: string
  /** Cache-Control of a file, from its path inside the directory (`main.3f2a9c.js`, `emoji/1f600.png`). */
  readonly assetCacheControl: (file: string) => string
  /** Cache-Control of the index page. */
  readonly indexCacheControl: string
  /** Headers on every answer of the site. */
  readonly headers: Readonly<Record<string, string>>
  /** Extra headers of the index page, from its HTML (the CSP hashes of its inline scripts, say). */
  readonly indexHeaders: (html: string) => Readonly<Record<string, string>>
  /** Extra headers of one file (a service worker's scope). */
  readonly fileHeaders?: (file: string) => Readonly<Record<string, string>>
  /** Paths that are never the application's (API, sockets, hooks): they stay 404 here. */
  readonly isReserved: (pathname: string) => boolean
}

export interface Site {
  readonly rules: SiteRules
  /** The answer for a GET of this path: a file, the index page, or RouteNotFound. */
  readonly handle: Effect.Effect<HttpServerResponse.HttpServerResponse, RouteNotFound, HttpServerRequest.HttpServerRequest>
  /** The index page with its headers (for routes that decide themselves when the application answers). */
  readonly index: Effect.Effect<HttpServerResponse.HttpServerResponse, never, HttpServerRequest.HttpServerRequest>
}

const WEB_TYPES: Record<string, string> = {
  mjs: "text/javascript; charset=utf-8",
  map: "application/json",
  webmanifest: "application/manifest+json",
  woff: "font/woff",
  woff2: "font/woff2",
  ttf: "font/ttf",
  otf: "font/otf",
  eot: "application/vnd.ms-fontobject",
  wasm: "application/wasm",
  mp3: "audio/mpeg",
  svg: "image/svg+xml"
}

const contentTypeOf = (file: string) => {
  const ext = extname(file).slice(1).toLowerCase()
  return WEB_TYPES[ext] ?? mimeTypeFor(ext)
}

const COMPRESSIBLE = /^(text\/|application\/(json|javascript|manifest\+json|xml|wasm)|image\/svg\+xml|image\/x-icon|font\/(ttf|otf)|application\/vnd\.ms-fontobject)/

/** Files up to this size are kept in memory with their compressed forms; larger ones are read per request. */
const CACHE_FILE_LIMIT = 32 * 1024 * 1024
const CACHE_BUDGET = 192 * 1024 * 1024

type Encoding = "br" | "gzip" | "identity"

/** The client's preferred encoding among the ones offered here: brotli, then gzip, honouring `q=0` refusals. */
export const preferredEncoding = (header: string | undefined): Encoding => {
  const accepted = new Map<string, number>()
  for (const part of (header ?? "").split(",")) {
    const [name, ...params] = part.trim().toLowerCase().split(";")
    if (name === "") continue
    const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="))
    accepted.set(name, q === undefined ? 1 : Number(q.slice(2)) || 0)
  }
  const weight = (name: string) => accepted.get(name) ?? accepted.get("*") ?? 0
  if (weight("br") > 0) return "br"
  if (weight("gzip") > 0) return "gzip"
  return "identity"
}

const compressors = {
  br: (body: Uint8Array) => promisify(brotliCompress)(body, { params: { [zlib.BROTLI_PARAM_QUALITY]: 9, [zlib.BROTLI_PARAM_SIZE_HINT]: body.length } }),
  gzip: (body: Uint8Array) => promisify(gzip)(body, { level: 9 })
}

interface Loaded {
  readonly body: Uint8Array
  readonly etag: string
  readonly mtimeMs: number
  readonly size: number
  /** Compressed forms, made once, or read from a precompressed `.br`/`.gz` beside the file (as nginx's gzip_static). */
  readonly encoded: Map<Exclude<Encoding, "identity">, Promise<Uint8Array | undefined>>
}

/** The file under `directory` a URL path names, or none when it escapes the directory or cannot be decoded. */
const resolveInside = (directory: string, relative: string): string | undefined => {
  let decoded: string
  try {
    decoded = decodeURIComponent(relative)
  } catch {
    return undefined
  }
  if (decoded.includes("\0") || decoded.includes("\\") || decoded.split("/").some((s) => s === ".." || s.startsWith("."))) return undefined
  const full = resolve(directory, `.${sep}${decoded}`)
  return full.startsWith(directory + sep) ? full : undefined
}

const tryStat = (path: string) => stat(path).then((s) => (s.isFile() ? s : undefined), () => undefined)

export const makeSite = (rules: SiteRules): Site => {
  const directory = resolve(rules.directory)
  const cache = new Map<string, Loaded>()
  let cached = 0

  const remember = (path: string, loaded: Loaded) => {
    if (loaded.size > CACHE_FILE_LIMIT) return
    const previous = cache.get(path)
    if (previous !== undefined) cached -= previous.size
    cache.delete(path)
    // Oldest first (a Map keeps insertion order): enough for a build whose hot files are few and small.
    for (const [key, entry] of cache) {
      if (cached + loaded.size <= CACHE_BUDGET) break
      cache.delete(key)
      cached -= entry.size
    }
    cache.set(path, loaded)
    cached += loaded.size
  }

  /** The file's content and compressed forms; re-read when its size or modification time changed. */
  const load = async (path: string): Promise<Loaded | undefined> => {
    const info = await tryStat(path)
    if (info === undefined) return undefined
    const known = cache.get(path)
    if (known !== undefined && known.mtimeMs === info.mtimeMs && known.size === info.size) return known
    const body = new Uint8Array(await readFile(path))
    const etag = `"${createHash("sha256").update(body).digest("base64url").slice(0, 22)}"`
    const loaded: Loaded = { body, etag, mtimeMs: info.mtimeMs, size: body.length, encoded: new Map() }
    remember(path, loaded)
    return loaded
  }

  const encodedBody = (path: string, loaded: Loaded, encoding: Exclude<Encoding, "identity">) => {
    let pending = loaded.encoded.get(encoding)
    if (pending === undefined) {
      const suffix = encoding === "br" ? ".br" : ".gz"
      pending = tryStat(path + suffix).then(async (pre) => {
        if (pre !== undefined) return new Uint8Array(await readFile(path + suffix))
        const made = new Uint8Array(await compressors[encoding](loaded.body))
        return made.length < loaded.body.length ? made : undefined
      }).catch(() => undefined)
      loaded.encoded.set(encoding, pending)
    }
    return pending
  }

  const respond = (path: string, status: number, headers: Record<string, string>) =>
    Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const loaded = yield* Effect.promise(() => load(path))
      if (loaded === undefined) return Option.none()
      const contentType = contentTypeOf(path)
      const compressible = COMPRESSIBLE.test(contentType) && loaded.size >= 1024
      const all: Record<string, string> = { ...rules.headers, ...headers }
      if (compressible) all["vary"] = "Accept-Encoding"
      const wanted = compressible ? preferredEncoding(request.headers["accept-encoding"]) : "identity"
      const body = wanted === "identity" ? undefined : yield* Effect.promise(() => encodedBody(path, loaded, wanted))
      const encoding = body === undefined ? "identity" : wanted
      // One ETag per representation, as caches key compressed and plain bodies apart.
      all["etag"] = encoding === "identity" ? loaded.etag : `${loaded.etag.slice(0, -1)}-${encoding}"`
      if (status === 200 && (request.headers["if-none-match"] ?? "").split(",").map((t) => t.trim().replace(/^W\//, "")).includes(all["etag"])) {
        return Option.some(HttpServerResponse.empty({ status: 304, headers: all }))
      }
      if (encoding !== "identity") all["content-encoding"] = encoding
      return Option.some(HttpServerResponse.uint8Array(body ?? loaded.body, { status, contentType, headers: all }))
    })

  const indexPath = join(directory, rules.index)
  let indexHeaders: { readonly etag: string; readonly headers: Readonly<Record<string, string>> } | undefined
  const indexExtraHeaders = Effect.promise(() => load(indexPath)).pipe(Effect.map((loaded) => {
    if (loaded === undefined) return {}
    if (indexHeaders?.etag !== loaded.etag) indexHeaders = { etag: loaded.etag, headers: rules.indexHeaders(new TextDecoder().decode(loaded.body)) }
    return indexHeaders.headers
  }))

  const index = Effect.gen(function*() {
    const extra = yield* indexExtraHeaders
    const answer = yield* respond(indexPath, 200, { ...extra, "cache-control": rules.indexCacheControl })
    return Option.getOrElse(answer, () =>
      HttpServerResponse.text("The web app build has no index page.", { status: 404, headers: { ...rules.headers, "cache-control": "no-store" } }))
  })

  const notFound = (request: HttpServerRequest.HttpServerRequest) => Effect.fail(new RouteNotFound({ request }))

  const file = (relative: string) =>
    Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const path = relative === "" || relative.endsWith("/") ? undefined : resolveInside(directory, relative)
      if (path === undefined) return yield* notFound(request)
      const cacheControl = rules.assetCacheControl(path.slice(directory.length + 1).split(sep).join("/"))
      const answer = yield* respond(path, 200, { "cache-control": cacheControl, ...rules.fileHeaders?.(path.slice(directory.length + 1)) })
      return Option.isSome(answer) ? answer.value : yield* notFound(request)
    })

  const handle = Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const pathname = new URL(request.url, "http://localhost").pathname
    if (rules.isReserved(pathname)) return yield* notFound(request)
    if (rules.assetPrefix !== "" && pathname.startsWith(`${rules.assetPrefix}/`)) return yield* file(pathname.slice(rules.assetPrefix.length + 1))
    if (rules.assetPrefix === "" && pathname !== "/" && extname(pathname) !== "") {
      return yield* file(pathname.slice(1)).pipe(Effect.catchTag("RouteNotFound", () => index))
    }
    return yield* index
  })

  return { rules, handle, index }
}

/** The SHA-256 sources of a page's inline scripts, for a `script-src` that allows exactly them. */
export const inlineScriptHashes = (html: string): ReadonlyArray<string> =>
  [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)]
    .filter(([, attributes, body]) => !/\bsrc\s*=/i.test(attributes) && body.trim() !== "")
    .map(([, , body]) => `'sha256-${createHash("sha256").update(body).digest("base64")}'`)
