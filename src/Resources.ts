import { fileURLToPath } from "node:url"

/**
 * Files the server reads at run time, wherever it runs from. In the source tree (tsx) this module is src/Resources.ts
 * and they sit in the repository; `npm run build` bundles every module into dist/ and copies them next to the bundle
 * (dist/migrations, dist/web), so dist/ with node_modules is the whole production artefact. The build defines
 * __SERVICE_BUILD__; under tsx it is not defined.
 */
declare const __SERVICE_BUILD__: boolean | undefined

export const isBuilt = typeof __SERVICE_BUILD__ !== "undefined" && __SERVICE_BUILD__

const fromHere = (sourceRelative: string, builtRelative: string) =>
  fileURLToPath(new URL(isBuilt ? builtRelative : sourceRelative, import.meta.url))

/** The plain SQL migrations. */
export const MIGRATIONS_DIR = fromHere("../migrations/", "./migrations/")

/** The web client's build (web/dist). */
export const CLIENT_DIR = fromHere("../web/dist/", "./web/")
