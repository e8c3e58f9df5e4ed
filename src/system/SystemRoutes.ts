import { HttpRouter } from "@effect/platform"
import { Effect, Option, Schema } from "effect"
import { Db } from "../../layers/Db.ts"
import { optionalCaller } from "../auth/Authenticate.ts"
import { authed, publicRoute } from "../auth/Guards.ts"
import { ApiError, badRequest } from "../http/ApiError.ts"
import * as Decode from "../http/Decode.ts"
import { respondWith, respondWithAll } from "../http/Respond.ts"
import { ServerLimits } from "../../schemas/wire/ServerLimits.ts"
import { type Ping, Ping as PingSchema, RedirectLocation, SchemaMigration, StringMap, TimezoneNames } from "../../schemas/wire/System.ts"
import * as AnalyticsRepo from "./AnalyticsRepo.ts"
import { clientConfig, clientLicense } from "./ClientConfig.ts"
import { appliedMigrations } from "./Installation.ts"
import { redirectLocation } from "./RedirectLocation.ts"
import { pushConfigured } from "./ServerSettings.ts"

/** Ping, client config and license, limits, time zones and link expansion (compat sections 3, 5, 12). */

const PingQuery = Schema.Struct({
  get_server_status: Schema.optionalWith(Decode.QueryBool, { default: () => false }),
  use_rest_semantics: Schema.optionalWith(Decode.QueryBool, { default: () => false })
})

const ping = Effect.gen(function*() {
  const query = yield* Decode.query(PingQuery)
  const db = yield* Db
  const push = yield* pushConfigured
  const body: Ping = {
    status: "OK",
    AndroidLatestVersion: "",
    AndroidMinVersion: "",
    IosLatestVersion: "",
    IosMinVersion: "",
    ActiveSearchBackend: "database",
    CanReceiveNotifications: push ? "true" : "false"
  }
  if (!query.get_server_status) return yield* respondWith(PingSchema, body)
  const database = yield* db.ping.pipe(Effect.timeout("2 seconds"), Effect.as("OK"), Effect.orElseSucceed(() => "UNHEALTHY"))
  const healthy = database === "OK"
  const full: Ping = { ...body, status: healthy ? "OK" : "UNHEALTHY", database_status: database, filestore_status: "OK" }
  // As Mattermost: whether the server runs as root (the System Console warns about it), told to system admins only.
  const caller = yield* optionalCaller.pipe(Effect.orElseSucceed(() => Option.none()))
  if (Option.isSome(caller) && caller.value.isSystemAdmin) Object.assign(full, { root_status: process.geteuid?.() === 0 })
  return yield* respondWith(PingSchema, full, healthy || query.use_rest_semantics ? 200 : 500)
})

const FormatQuery = Schema.Struct({ format: Schema.optionalWith(Schema.String, { default: () => "" }) })

/** Mattermost 10 answers only the old format: a missing format is a 400, any other a 501. */
const requireOldFormat = Effect.gen(function*() {
  const { format } = yield* Decode.query(FormatQuery)
  if (format === "") return yield* badRequest("api.context.invalid_param.app_error", "Invalid or missing format parameter in request URL.")
  if (format !== "old") {
    return yield* new ApiError({ status: 501, id: "api.config.client.old_format.app_error", message: "Only the old format is implemented." })
  }
})

const configClient = Effect.gen(function*() {
  yield* requireOldFormat
  const caller = yield* optionalCaller.pipe(Effect.orElseSucceed(() => Option.none()))
  return yield* respondWith(StringMap, yield* clientConfig(Option.isSome(caller)))
})

const licenseClient = Effect.gen(function*() {
  yield* requireOldFormat
  return yield* respondWith(StringMap, clientLicense())
})

const limits = Effect.gen(function*() {
  return yield* respondWith(ServerLimits, { activeUserCount: yield* AnalyticsRepo.activeUserCount, maxUsersLimit: 0, maxUsersHardLimit: 0 })
})

const timezones = Effect.gen(function*() {
  return yield* respondWith(TimezoneNames, Intl.supportedValuesOf("timeZone"))
})

const RedirectQuery = Schema.Struct({ url: Schema.optionalWith(Schema.String, { default: () => "" }) })

const redirect = Effect.gen(function*() {
  const { url } = yield* Decode.query(RedirectQuery)
  const target = URL.canParse(url) ? new URL(url) : undefined
  if (target === undefined || (target.protocol !== "http:" && target.protocol !== "https:")) {
    return yield* badRequest("api.context.invalid_param.app_error", "Invalid or missing url parameter in request URL.")
  }
  return yield* respondWith(RedirectLocation, { location: yield* redirectLocation(target) })
})

/** The database schema's migrations (System Console, Mattermost's getAppliedSchemaMigrations): system admins. */
const schemaVersion = Effect.flatMap(appliedMigrations, (applied) => respondWithAll(SchemaMigration, applied))

export const routes = HttpRouter.empty.pipe(
  HttpRouter.get("/api/v4/system/ping", publicRoute(ping)),
  HttpRouter.get("/api/v4/config/client", publicRoute(configClient)),
  HttpRouter.get("/api/v4/license/client", publicRoute(licenseClient)),
  HttpRouter.get("/api/v4/limits/server", authed(limits)),
  HttpRouter.get("/api/v4/system/timezones", authed(timezones)),
  HttpRouter.get("/api/v4/system/schema/version", authed.admin(schemaVersion)),
  HttpRouter.get("/api/v4/redirect_location", authed(redirect))
)
