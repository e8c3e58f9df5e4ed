import { HttpRouter } from "@effect/platform"
import { Effect } from "effect"
import { requireSystemAdmin } from "../auth/Authenticate.ts"
import * as Decode from "../http/Decode.ts"
import { json } from "../http/Respond.ts"
import { configDocument, environmentSettings } from "./ConfigDocument.ts"
import { applyConfig, mergeConfig } from "./ConfigUpdate.ts"

/**
 * The System Console's configuration, system admins only: GET /config (the document), PUT /config (the whole
 * document back, as the console saves), PUT /config/patch (a part of it), GET /config/environment. Writes answer
 * the document as it now is.
 */
const read = Effect.gen(function*() {
  yield* requireSystemAdmin
  return json(yield* configDocument)
})

const write = (patch: boolean) =>
  Effect.gen(function*() {
    yield* requireSystemAdmin
    const incoming = yield* Decode.jsonBody
    const current = yield* configDocument
    yield* applyConfig(current, patch ? mergeConfig(current, incoming) : incoming)
    return json(yield* configDocument)
  })

const environment = Effect.gen(function*() {
  yield* requireSystemAdmin
  return json(yield* environmentSettings)
})

export const routes = HttpRouter.empty.pipe(
  HttpRouter.get("/api/v4/config", read),
  HttpRouter.put("/api/v4/config", write(false)),
  HttpRouter.put("/api/v4/config/patch", write(true)),
  HttpRouter.get("/api/v4/config/environment", environment)
)
