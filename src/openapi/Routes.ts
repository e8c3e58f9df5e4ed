import { HttpRouter, OpenApi } from "@effect/platform"
import { Effect } from "effect"
import { publicRoute } from "../auth/Guards.ts"
import { json } from "../http/Respond.ts"
import { NativeApi } from "./NativeApi.ts"

/** GET /api/v1/openapi.json: the native API's OpenAPI document, public; generated once, on first request. */
let generated: OpenApi.OpenAPISpec | undefined
export const document = (): OpenApi.OpenAPISpec => generated ??= OpenApi.fromApi(NativeApi)

export const routes = HttpRouter.empty.pipe(
  HttpRouter.get("/api/v1/openapi.json", publicRoute(Effect.sync(() => json(document()))))
)
