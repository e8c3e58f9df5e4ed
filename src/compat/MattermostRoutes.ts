import routes from "./mattermost-routes.json" with { type: "json" }

/**
 * Mattermost's /api/v4 surface: the (method, path template) pairs of its API description, extracted by
 * GenerateMattermostRoutes.ts into mattermost-routes.json. Templates use `{name}` for one path segment.
 */
export interface MattermostRoute {
  readonly method: string
  readonly path: string
}

// Imported rather than read, so that the production bundle carries it.
export const MATTERMOST_ROUTES: ReadonlyArray<MattermostRoute> = routes

const escape = (s: string) => s.replace(/[.*+?^$()|[\]\\]/g, "\\$&")

/** A matcher for a template: `{x}` (Mattermost) or `:x` (our router) stands for one non-empty segment. */
export const templateMatcher = (template: string) =>
  new RegExp(`^${template.split(/(\{[^}]+\}|:[A-Za-z_]+)/).map((part, i) => (i % 2 === 1 ? "[^/]+" : escape(part))).join("")}$`)

const compiled = MATTERMOST_ROUTES.map((route) => ({ ...route, pattern: templateMatcher(route.path) }))

/** The Mattermost route a request would hit, if any. */
export const matchMattermostRoute = (method: string, path: string): MattermostRoute | undefined =>
  compiled.find((route) => route.method === method && route.pattern.test(path))
