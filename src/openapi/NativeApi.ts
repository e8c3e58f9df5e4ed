import { HttpApi, HttpApiEndpoint, HttpApiGroup, HttpApiMiddleware, HttpApiSchema, HttpApiSecurity, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { NativeError, RateLimited } from "../../schemas/native/Errors.ts"
import { HealthLive, HealthReady, HealthStats, HealthUnavailable } from "../../schemas/native/Health.ts"
import { ConfigSources, ConsoleTeams, ConsoleTeamsQuery } from "../../schemas/native/Console.ts"
import { AdminHealth, ExportJob, ExportJobs, ExportNameParams, ImportJobs, ImportJobsQuery, SecurityEvents, SecurityEventsQuery, TopActivity, TopActivityQuery } from "../../schemas/native/ConsoleReports.ts"
import { DryRunQuery, ImportIdParams, ImportJob, StartImport } from "../../schemas/native/Import.ts"
import { SettingsPatch as PushSettingsPatch, SettingsView as PushSettingsView } from "../../schemas/native/Push.ts"
import {
  AdminProviders,
  ExchangeRequest,
  ExchangeResponse,
  LoginQuery,
  ProviderIdParams,
  ProviderInput,
  ProviderKeyParams,
  ProviderTestResult,
  PublicProviders,
  SavedProvider,
  SsoSettings,
  SsoSettingsPatch
} from "../../schemas/native/Sso.ts"
import { SESSION_COOKIE } from "../auth/Authenticate.ts"
import { SERVICE_VERSION } from "../system/Version.ts"

/**
 * The native API (/api/v1) as an HttpApi description, from which GET /api/v1/openapi.json is generated
 * (OpenApi.fromApi). The routes themselves stay HttpRouter handlers (docs/architecture.md, "Why HttpRouter rather
 * than HttpApi"); what keeps the two together is that both use the Schemas of schemas/native: the handlers decode
 * their input and encode their answers (`respondWith`, src/http/Respond.ts) with exactly the Schemas named here, and
 * test/openapi/OpenApi.test.ts fails when the router serves an /api/v1 route this description lacks. One exception:
 * an SSO provider's body (ProviderInput) is checked field by field by validateProvider (src/sso/ProviderConfig.ts),
 * whose 400s name the field; the Schema describes what it accepts.
 */

/** The error body at each status an endpoint can answer with; 429 has its own body. */
const errorsAt = (...statuses: ReadonlyArray<number>) =>
  Schema.Union(...statuses.map((status) => {
    // Re-annotating a Struct drops its identifier: name it again so that the document refers to one component.
    return status === 429
      ? RateLimited.annotations({ ...HttpApiSchema.annotations<typeof RateLimited.Type>({ status }), identifier: "RateLimited" })
      : NativeError.annotations({ ...HttpApiSchema.annotations<typeof NativeError.Type>({ status }), identifier: "NativeError" })
  }))

/**
 * HttpApi adds its own decode failure (HttpApiDecodeError) as a 400 of every endpoint; here a failed decode is a
 * NativeError like any other 400 (src/http/Decode.ts), declared where a request is decoded. So the generated 400s
 * keep only the declared body, and the components HttpApi brought for its own error go.
 */
const withNativeDecodeErrors = (spec: OpenApi.OpenAPISpec): OpenApi.OpenAPISpec => {
  const isDecodeError = (schema: unknown) => JSON.stringify(schema) === JSON.stringify({ $ref: "#/components/schemas/HttpApiDecodeError" })
  for (const item of Object.values(spec.paths)) {
    for (const operation of Object.values(item) as Array<OpenApi.OpenAPISpecOperation>) {
      const badRequest = operation.responses[400]
      const media = badRequest?.content?.["application/json"]
      if (media === undefined) continue
      const schema = media.schema as { anyOf?: Array<unknown> }
      const declared = isDecodeError(schema) ? [] : (schema.anyOf ?? [schema]).filter((member) => !isDecodeError(member))
      if (declared.length === 0) delete operation.responses[400]
      else media.schema = declared.length === 1 ? declared[0] as typeof media.schema : { anyOf: declared } as typeof media.schema
    }
  }
  for (const name of ["HttpApiDecodeError", "Issue", "PropertyKey"]) delete spec.components.schemas[name]
  return spec
}

const sessionToken = {
  bearer: HttpApiSecurity.bearer.pipe(
    HttpApiSecurity.annotate(OpenApi.Description, "A session or personal access token: `Authorization: Bearer <token>` (or `Token <token>`)")
  ),
  cookie: HttpApiSecurity.apiKey({ in: "cookie", key: SESSION_COOKIE }).pipe(
    HttpApiSecurity.annotate(OpenApi.Description, "The session cookie; writes also need X-CSRF-Token (or X-Requested-With: XMLHttpRequest)")
  )
}

/** Any user's session: 401 without a valid one. Described only, never run. */
class Session extends HttpApiMiddleware.Tag<Session>()("Session", { security: sessionToken }) {}

/** A system administrator's session: 401 without a valid session, 403 for anyone else. Described only, never run. */
class SystemAdmin extends HttpApiMiddleware.Tag<SystemAdmin>()("SystemAdmin", { security: sessionToken }) {}

const health = HttpApiGroup.make("health")
  .add(
    HttpApiEndpoint.get("live", "/api/v1/health/live")
      .addSuccess(HealthLive)
      .annotate(OpenApi.Summary, "Liveness: answers while the process serves")
  )
  .add(
    HttpApiEndpoint.get("ready", "/api/v1/health/ready")
      .addSuccess(HealthReady)
      .addError(HealthUnavailable.annotations({ identifier: "HealthUnavailable" }), { status: 503 })
      .annotate(OpenApi.Summary, "Readiness: the database and the cache answer")
  )
  .add(
    HttpApiEndpoint.get("metrics", "/api/v1/health/metrics")
      .addSuccess(HttpApiSchema.Text({ contentType: "text/plain; version=0.0.4; charset=utf-8" }))
      .annotate(OpenApi.Summary, "Prometheus text exposition")
  )
  .add(
    HttpApiEndpoint.get("stats", "/api/v1/health/stats")
      .addSuccess(HealthStats)
      .annotate(OpenApi.Summary, "Live figures of this node")
  )
  .annotate(OpenApi.Description, "No authentication: for load balancers, orchestrators and monitoring")

const sso = HttpApiGroup.make("sso")
  .add(
    HttpApiEndpoint.get("providers", "/api/v1/oauth2/providers")
      .addSuccess(PublicProviders)
      .addError(errorsAt(503))
      .annotate(OpenApi.Summary, "The active providers a login page offers (empty while single sign-on is off)")
  )
  .add(
    HttpApiEndpoint.get("login", "/api/v1/oauth2/:provider_key/login")
      .setPath(ProviderKeyParams)
      .setUrlParams(LoginQuery)
      .addSuccess(HttpApiSchema.Empty(302).annotations({ description: "Redirect to the identity provider; on failure, to /login?error=… (a client sending Accept: application/json gets the error status and body instead)" }))
      .addError(errorsAt(400, 404, 503))
      .annotate(OpenApi.Summary, "Starts a sign-in with a provider (a browser navigation)")
  )
  .add(
    HttpApiEndpoint.get("callback", "/api/v1/oauth2/:provider_key/callback")
      .setPath(ProviderKeyParams)
      .addSuccess(HttpApiSchema.Empty(302).annotations({ description: "Redirect to /login?code=… (web) or the mobile app's scheme; on failure, to /login?error=… (a JSON client gets the error status and body; the mobile flow an HTML page with the error status)" }))
      .addError(errorsAt(400, 401, 403, 404, 503))
      .annotate(OpenApi.Summary, "Where the identity provider sends the browser back (query: state, code or error)")
  )
  .add(
    HttpApiEndpoint.post("exchange", "/api/v1/oauth2/exchange")
      .setPayload(ExchangeRequest)
      .addSuccess(ExchangeResponse)
      .addError(errorsAt(400, 429, 503))
      .annotate(OpenApi.Summary, "Redeems the one-time code of a finished web sign-in for the session (also set as cookies)")
  )
  .annotate(OpenApi.Description, "Single sign-on for users (docs/sso.md)")

const ssoAdmin = HttpApiGroup.make("sso-admin")
  .add(
    HttpApiEndpoint.get("list", "/api/v1/admin/sso")
      .addSuccess(AdminProviders)
      .annotate(OpenApi.Summary, "Every provider configuration")
  )
  .add(
    HttpApiEndpoint.post("create", "/api/v1/admin/sso")
      .setPayload(ProviderInput)
      .addSuccess(SavedProvider, { status: 201 })
      .addError(errorsAt(400, 409))
      .annotate(OpenApi.Summary, "Adds a provider")
  )
  .add(
    HttpApiEndpoint.get("getSettings", "/api/v1/admin/sso/settings")
      .addSuccess(SsoSettings)
      .annotate(OpenApi.Summary, "The global switches")
  )
  .add(
    HttpApiEndpoint.put("putSettings", "/api/v1/admin/sso/settings")
      .setPayload(SsoSettingsPatch)
      .addSuccess(SsoSettings)
      .addError(errorsAt(400, 409))
      .annotate(OpenApi.Summary, "Changes the switches it names (require_sso needs an active, tested provider)")
  )
  .add(
    HttpApiEndpoint.put("update", "/api/v1/admin/sso/:id")
      .setPath(ProviderIdParams)
      .setPayload(ProviderInput)
      .addSuccess(SavedProvider)
      .addError(errorsAt(400, 404, 409))
      .annotate(OpenApi.Summary, "Changes a provider (fields not sent are kept, the secret too)")
  )
  .add(
    HttpApiEndpoint.del("remove", "/api/v1/admin/sso/:id")
      .setPath(ProviderIdParams)
      .addSuccess(HttpApiSchema.NoContent)
      .addError(errorsAt(400, 404, 409))
      .annotate(OpenApi.Summary, "Removes a provider")
  )
  .add(
    HttpApiEndpoint.post("test", "/api/v1/admin/sso/:id/test")
      .setPath(ProviderIdParams)
      .addSuccess(ProviderTestResult)
      .addError(errorsAt(400, 404))
      .annotate(OpenApi.Summary, "Checks a provider's endpoints and credentials now")
  )
  .addError(errorsAt(401, 403, 503))
  .middleware(SystemAdmin)
  .annotate(OpenApi.Description, "Single sign-on configuration, system administrators only; secrets go in and never come out")

const pushAdmin = HttpApiGroup.make("push-admin")
  .add(
    HttpApiEndpoint.get("view", "/api/v1/admin/push")
      .addSuccess(PushSettingsView)
      .annotate(OpenApi.Summary, "The push credentials: public values as they are, private ones only as \"set\"")
  )
  .add(
    HttpApiEndpoint.put("update", "/api/v1/admin/push")
      .setPayload(PushSettingsPatch)
      .addSuccess(PushSettingsView)
      .addError(errorsAt(400))
      .annotate(OpenApi.Summary, "Changes the fields it names (absent or \"set\" keeps, null or \"\" clears)")
  )
  .addError(errorsAt(401, 403, 503))
  .middleware(SystemAdmin)
  .annotate(OpenApi.Description, "Push notification credentials, system administrators only (docs/push.md)")

const consoleAdmin = HttpApiGroup.make("console")
  .add(
    HttpApiEndpoint.get("configSources", "/api/v1/admin/config/sources")
      .addSuccess(ConfigSources)
      .annotate(OpenApi.Summary, "Which settings of GET /api/v4/config can be changed at run time, and which the environment fixes (with the variable)")
  )
  .add(
    HttpApiEndpoint.get("teams", "/api/v1/admin/teams")
      .setUrlParams(ConsoleTeamsQuery)
      .addSuccess(ConsoleTeams)
      .addError(errorsAt(400))
      .annotate(OpenApi.Summary, "Teams (archived ones too with include_deleted) with their member and channel counts")
  )
  .add(
    HttpApiEndpoint.get("topActivity", "/api/v1/admin/analytics/top")
      .setUrlParams(TopActivityQuery)
      .addSuccess(TopActivity)
      .addError(errorsAt(400))
      .annotate(OpenApi.Summary, "The channels and teams with the most posts over the last days (1 to 365, default 30), at most `limit` (1 to 50) of each")
  )
  .add(
    HttpApiEndpoint.get("health", "/api/v1/admin/health")
      .addSuccess(AdminHealth)
      .annotate(OpenApi.Summary, "This node's health for a person: each dependency's state and probe latency, breakers, sockets, version and uptime")
  )
  .add(
    HttpApiEndpoint.get("securityEvents", "/api/v1/admin/security_events")
      .setUrlParams(SecurityEventsQuery)
      .addSuccess(SecurityEvents)
      .addError(errorsAt(400))
      .annotate(OpenApi.Summary, "This node's recent security events (its newest 1000), newest first, per_page 1 to 200")
  )
  .addError(errorsAt(401, 403, 503))
  .middleware(SystemAdmin)
  .annotate(OpenApi.Description, "What the web client's System Console reads beyond Mattermost's API, system administrators only")

const imports = HttpApiGroup.make("import")
  .add(
    HttpApiEndpoint.post("start", "/api/v1/admin/import")
      .setUrlParams(DryRunQuery)
      .setPayload(Schema.Union(StartImport, HttpApiSchema.Uint8Array({ contentType: "application/octet-stream" })))
      .addSuccess(ImportJob, { status: 201 })
      .addError(errorsAt(400))
      .annotate(OpenApi.Summary, "Starts a Mattermost bulk import (or with format=slack&team=NAME a Slack workspace export's): the .zip or .jsonl as the body (any type but JSON), or JSON naming a file in SERVICE_DATA_DIR/imports")
  )
  .add(
    HttpApiEndpoint.get("list", "/api/v1/admin/import")
      .setUrlParams(ImportJobsQuery)
      .addSuccess(ImportJobs)
      .addError(errorsAt(400))
      .annotate(OpenApi.Summary, "The import jobs, newest first, per_page 1 to 100")
  )
  .add(
    HttpApiEndpoint.get("get", "/api/v1/admin/import/:id")
      .setPath(ImportIdParams)
      .addSuccess(ImportJob)
      .addError(errorsAt(400, 404))
      .annotate(OpenApi.Summary, "An import job's progress, counts and problems")
  )
  .add(
    HttpApiEndpoint.post("startExport", "/api/v1/admin/export")
      .addSuccess(ExportJob, { status: 201 })
      .annotate(OpenApi.Summary, "Starts a bulk export (a zip with the files, no password hashes) into SERVICE_DATA_DIR/exports")
  )
  .add(
    HttpApiEndpoint.get("listExports", "/api/v1/admin/export")
      .addSuccess(ExportJobs)
      .annotate(OpenApi.Summary, "The exports of SERVICE_DATA_DIR/exports, running, finished or failed, newest first")
  )
  .add(
    HttpApiEndpoint.get("downloadExport", "/api/v1/admin/export/:name")
      .setPath(ExportNameParams)
      .addSuccess(HttpApiSchema.Uint8Array({ contentType: "application/zip" }))
      .addError(errorsAt(400, 404))
      .annotate(OpenApi.Summary, "A finished export's zip")
  )
  .addError(errorsAt(401, 403, 503))
  .middleware(SystemAdmin)
  .annotate(OpenApi.Description, "Bulk import, system administrators only (docs/api-v1.md)")

const realtime = HttpApiGroup.make("realtime")
  .add(
    HttpApiEndpoint.get("socket", "/api/v1/ws")
      .addSuccess(HttpApiSchema.Empty(101).annotations({ description: "Switching Protocols: the native WebSocket (docs/websocket.md)" }))
      .addError(errorsAt(400, 401, 429))
      .annotate(OpenApi.Summary, "The native WebSocket; a request that is not a handshake is a 400")
  )
  .middleware(Session)

const document = HttpApiGroup.make("openapi")
  .add(
    HttpApiEndpoint.get("document", "/api/v1/openapi.json")
      .addSuccess(Schema.Record({ key: Schema.String, value: Schema.Unknown }).annotations({ identifier: "OpenApiDocument" }))
      .annotate(OpenApi.Summary, "This document (OpenAPI 3.1)")
  )

export const NativeApi = HttpApi.make("native")
  .add(health)
  .add(sso)
  .add(ssoAdmin)
  .add(pushAdmin)
  .add(consoleAdmin)
  .add(imports)
  .add(realtime)
  .add(document)
  .annotate(OpenApi.Transform, (spec) => withNativeDecodeErrors(spec as OpenApi.OpenAPISpec))
  .annotate(OpenApi.Title, "The service: native API")
  .annotate(OpenApi.Version, SERVICE_VERSION)
  .annotate(
    OpenApi.Description,
    "The service's own API under /api/v1 (docs/api-v1.md), beside the Mattermost-compatible /api/v4. Errors have the body NativeError."
  )
