import { HttpRouter } from "@effect/platform"
import { Effect } from "effect"
import { Config, ConfigEnvironment } from "../../schemas/wire/Config.ts"
import { authed } from "../auth/Guards.ts"
import * as Decode from "../http/Decode.ts"
import { respondWith } from "../http/Respond.ts"
import { type ConfigDocument, configDocument, environmentSettings } from "./ConfigDocument.ts"
import { applyConfig, mergeConfig } from "./ConfigUpdate.ts"

/**
 * The System Console's configuration, system admins only: GET /config (the document), PUT /config (the whole
 * document back, as the console saves), PUT /config/patch (a part of it), GET /config/environment. Writes answer
 * the document as it now is.
 */
/**
 * The document's keys, section by section, that the Config Schema does not declare ("Section.Key"): respondWith
 * would drop them silently, so the build fails instead when ConfigDocument.ts gains a setting the Schema lacks.
 */
type Undeclared<D, S> = D extends ReadonlyArray<unknown> ? never
  : D extends object ? {
      [K in keyof D & string]: K extends keyof S
        ? Undeclared<D[K], S[K]> extends infer Inner extends string ? `${K}.${Inner}` : never
        : K
    }[keyof D & string]
  : never
const allDeclared = <_ extends [never]>() => undefined
allDeclared<[Undeclared<ConfigDocument, typeof Config.Type>]>()

const read = Effect.gen(function*() {
  return yield* respondWith(Config, yield* configDocument)
})

const write = (patch: boolean) =>
  Effect.gen(function*() {
    const incoming = yield* Decode.jsonBody
    const current = yield* configDocument
    yield* applyConfig(current, patch ? mergeConfig(current, incoming) : incoming)
    return yield* respondWith(Config, yield* configDocument)
  })

const environment = Effect.gen(function*() {
  return yield* respondWith(ConfigEnvironment, yield* environmentSettings)
})

export const routes = HttpRouter.empty.pipe(
  HttpRouter.get("/api/v4/config", authed.admin(read)),
  HttpRouter.put("/api/v4/config", authed.admin(write(false))),
  HttpRouter.put("/api/v4/config/patch", authed.admin(write(true))),
  HttpRouter.get("/api/v4/config/environment", authed.admin(environment))
)
