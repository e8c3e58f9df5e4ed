import { HttpRouter } from "@effect/platform"
import { Context, Effect, Layer, Option } from "effect"
import { AppConfig } from "../Config.ts"
import * as ClientApp from "./ClientApp.ts"
import { inlineScriptHashes, makeSite, type Site, type SiteRules } from "./StaticSite.ts"
import { publicRoute } from "../auth/Guards.ts"

/**
 * The web application served at the site root: a Mattermost web app build when SERVICE_WEBAPP_DIR is set, else
 * none, and the service's own web client (web/, ClientApp.ts) answers instead.
 */
export class WebApp extends Context.Tag("service/WebApp")<WebApp, Option.Option<Site>>() {}

const YEAR = 31_536_000

/** Webpack's content hash in a file name (`main.3f2a9c41d7.js`, `files/8a1c…b2.woff2`): the name changes with it. */
const isHashed = (file: string) => /(^|[./-])[0-9a-f]{8,}\.[a-z0-9]+$/i.test(file)

/** Paths the Mattermost server answers itself, never with root.html. */
const RESERVED = /^\/(api|plugins|hooks|oauth)(\/|$)/

/**
 * A Mattermost web app build (the `client/` folder of a release) served as Mattermost's server serves it
 * (server/channels/web/static.go and handlers.go): files under /static/, root.html for every other GET that is not
 * an API, plugin, hook, OAuth or socket path. Hashed files are cached for a year and immutable; other files for a
 * day (their names do not change between releases); root.html is revalidated on every load (`no-cache`) so that an
 * upgrade reaches browsers at once; the service worker and module-federation entry are never cached stale. Security
 * headers as Mattermost sends them: nosniff, no referrer, and for the page no framing by other sites and a script
 * policy allowing the build's own files and the inline scripts of root.html (by hash).
 */
export const mattermostRules = (directory: string): SiteRules => ({
  directory,
  index: "root.html",
  assetPrefix: "/static",
  assetCacheControl: (file) => {
    const name = file.split("/").at(-1) ?? file
    if (/^(service-worker|sw|remote_entry)\.js$/.test(name) || name === "manifest.json") return "no-cache, public"
    return isHashed(file) ? `public, max-age=${YEAR}, immutable` : "public, max-age=86400"
  },
  indexCacheControl: "no-cache, max-age=31556926, public",
  headers: { "permissions-policy": "", "x-content-type-options": "nosniff", "referrer-policy": "no-referrer" },
  indexHeaders: (html) => ({
    "x-frame-options": "SAMEORIGIN",
    "content-security-policy": `frame-ancestors 'self'; script-src 'self'${inlineScriptHashes(html).map((h) => ` ${h}`).join("")}`
  }),
  // The build registers its service worker from /static/; it may control the whole site, as in Mattermost.
  fileHeaders: (file): Record<string, string> => (/^(service-worker|sw)\.js$/.test(file) ? { "service-worker-allowed": "/" } : {}),
  isReserved: (pathname) => RESERVED.test(pathname)
})

/** The build served at the root; without SERVICE_WEBAPP_DIR none (the place for another build, such as the service's own client). */
export const layer = Layer.effect(
  WebApp,
  Effect.map(AppConfig, (config) => Option.map(config.webappDir, (dir) => makeSite(mattermostRules(dir))))
)

/** The site root and every other GET no route of the API took: the Mattermost web app's, or our own client's. */
const site = Effect.gen(function*() {
  const app = yield* WebApp
  return Option.isSome(app) ? yield* app.value.handle : yield* ClientApp.handle
})

/** The web app's index for a path that a built-in page serves when there is no web app; none without one. */
export const webAppIndex = Effect.flatMap(WebApp, (app) =>
  Option.match(app, { onNone: () => Effect.succeedNone, onSome: (s) => Effect.map(s.index, Option.some) }))

export const routes = HttpRouter.empty.pipe(
  HttpRouter.get("/", publicRoute(site)),
  HttpRouter.get("/*", publicRoute(site)),
  HttpRouter.head("/", publicRoute(site)),
  HttpRouter.head("/*", publicRoute(site))
)
