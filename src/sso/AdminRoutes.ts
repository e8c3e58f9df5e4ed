import { HttpRouter, HttpServerResponse } from "@effect/platform"
import { Effect, Either, Option, Schema } from "effect"
import { IdP } from "../../layers/IdP.ts"
import { AdminProviders, ProviderIdParams, ProviderTestResult, SavedProvider, SsoSettings, SsoSettingsPatch } from "../../schemas/native/Sso.ts"
import { authed } from "../auth/Guards.ts"
import { AppConfig } from "../Config.ts"
import { badRequest, notFound } from "../http/ApiError.ts"
import * as Decode from "../http/Decode.ts"
import { respondWith } from "../http/Respond.ts"
import { type ProviderRow, toAdminWire, validateProvider } from "./ProviderConfig.ts"
import { testProvider } from "./ProviderTest.ts"
import { SsoDirectory } from "./SsoDirectory.ts"

/**
 * /api/v1/admin/sso: provider configurations and the global settings, system administrators only. Client secrets go
 * in and never come out (`client_secret_set` says whether one is stored).
 */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

const invalid = (message: string, field: string) => badRequest("api.sso.provider.invalid_field", message, field)

const providerId = Effect.gen(function*() {
  const { id } = yield* Decode.params(ProviderIdParams)
  if (!UUID.test(id)) return yield* invalid("id: must be a provider UUID", "id")
  return id.toLowerCase()
})

const existing = (id: string) =>
  Effect.flatMap(SsoDirectory, (d) => d.byId(id)).pipe(
    Effect.flatMap(Option.match({
      onNone: () => Effect.fail(notFound("api.sso.provider.not_found", "SSO provider not found.")),
      onSome: (row: ProviderRow) => Effect.succeed(row)
    }))
  )

const wire = (row: ProviderRow) => Effect.map(AppConfig, (config) => toAdminWire(row, config.siteUrl))

/** What the admin should know about a provider just saved: plain-http URLs (development only), SSO switched off. */
const warningsFor = (row: ProviderRow) =>
  Effect.gen(function*() {
    const warnings: Array<string> = []
    const urls = { issuer_url: row.issuer_url, web_base_url: row.settings.web_base_url, api_base_url: row.settings.api_base_url }
    for (const [field, value] of Object.entries(urls)) {
      if (typeof value === "string" && value.startsWith("http://")) {
        warnings.push(`${field} uses plain http: accepted because SERVICE_ENVIRONMENT is not production, where https is required`)
      }
    }
    const directory = yield* SsoDirectory
    if (row.is_active && !(yield* directory.settings).enable_sso) {
      warnings.push("single sign-on is switched off globally: this provider is not offered until PUT /api/v1/admin/sso/settings sets enable_sso to true")
    }
    if (warnings.length > 0) {
      yield* Effect.logWarning("SSO provider saved with warnings").pipe(Effect.annotateLogs({ provider_key: row.provider_key, warnings }))
    }
    return warnings
  })

/** The provider as the admin API shows it, with `warnings` when there is something to say. */
const savedWire = (row: ProviderRow) =>
  Effect.gen(function*() {
    const body = yield* wire(row)
    const warnings = yield* warningsFor(row)
    return warnings.length > 0 ? { ...body, warnings } : body
  })

const validated = (body: unknown, before?: ProviderRow) =>
  Effect.flatMap(IdP, (idp) =>
    Either.match(validateProvider(body, { allowInsecureUrls: idp.allowInsecureRequests }, before), {
      onLeft: (e) => Effect.fail(invalid(e.message, e.field)),
      onRight: Effect.succeed
    }))

const list = Effect.gen(function*() {
  const directory = yield* SsoDirectory
  const config = yield* AppConfig
  return yield* respondWith(AdminProviders, (yield* directory.list).map((row) => toAdminWire(row, config.siteUrl)))
})

const create = Effect.gen(function*() {
  const draft = yield* validated(yield* Decode.jsonBody)
  const directory = yield* SsoDirectory
  return yield* respondWith(SavedProvider, yield* savedWire(yield* directory.create(draft)), 201)
})

const update = Effect.gen(function*() {
  const id = yield* providerId
  const before = yield* existing(id)
  const draft = yield* validated(yield* Decode.jsonBody, before)
  const directory = yield* SsoDirectory
  const row = yield* directory.update(id, draft)
  yield* Effect.flatMap(IdP, (idp) => idp.forget(id))
  return yield* respondWith(SavedProvider, yield* savedWire(row))
})

const remove = Effect.gen(function*() {
  const id = yield* providerId
  const directory = yield* SsoDirectory
  yield* directory.remove(id)
  yield* Effect.flatMap(IdP, (idp) => idp.forget(id))
  return HttpServerResponse.empty({ status: 204 })
})

const test = Effect.gen(function*() {
  const id = yield* providerId
  const row = yield* existing(id)
  const result = yield* testProvider(row)
  const directory = yield* SsoDirectory
  yield* directory.recordTest(id, result.success)
  // The next sign-in discovers afresh, with what the admin just looked at.
  yield* Effect.flatMap(IdP, (idp) => idp.forget(id))
  return yield* respondWith(ProviderTestResult, result)
})

const getSettings = Effect.gen(function*() {
  const directory = yield* SsoDirectory
  return yield* respondWith(SsoSettings, yield* directory.settings)
})

const putSettings = Effect.gen(function*() {
  const raw = yield* Decode.jsonBody
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) return yield* invalid("body: must be a JSON object", "body")
  for (const field of Object.keys(raw)) {
    if (field !== "enable_sso" && field !== "require_sso") return yield* invalid(`${field}: is not an SSO setting`, field)
  }
  const patch = yield* Schema.decodeUnknown(SsoSettingsPatch)(raw).pipe(
    Effect.mapError(() => invalid("enable_sso and require_sso must be true or false", "body"))
  )
  const directory = yield* SsoDirectory
  return yield* respondWith(SsoSettings, yield* directory.updateSettings(patch))
})

export const routes = HttpRouter.empty.pipe(
  HttpRouter.get("/api/v1/admin/sso", authed.admin(list)),
  HttpRouter.post("/api/v1/admin/sso", authed.admin(create)),
  HttpRouter.get("/api/v1/admin/sso/settings", authed.admin(getSettings)),
  HttpRouter.put("/api/v1/admin/sso/settings", authed.admin(putSettings)),
  HttpRouter.put("/api/v1/admin/sso/:id", authed.admin(update)),
  HttpRouter.del("/api/v1/admin/sso/:id", authed.admin(remove)),
  HttpRouter.post("/api/v1/admin/sso/:id/test", authed.admin(test))
)
