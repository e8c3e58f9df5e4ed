import { HttpRouter } from "@effect/platform"
import { Clock, Effect } from "effect"
import { SecurityEvents, SecurityEventsQuery, TopActivity, TopActivityQuery } from "../../schemas/native/ConsoleReports.ts"
import { authed } from "../auth/Guards.ts"
import * as Decode from "../http/Decode.ts"
import { respondWith } from "../http/Respond.ts"
import { SecurityEventLog } from "../security/SecurityEventLog.ts"
import * as TopActivityRepo from "./TopActivityRepo.ts"

/**
 * The System Console's reports beyond Mattermost's analytics, system admins only: GET /api/v1/admin/analytics/top
 * (the busiest channels and teams of the last days, for Site Statistics) and GET /api/v1/admin/security_events (this
 * node's recent security events, newest first, a bounded page, for the Health page).
 */
const top = Effect.gen(function*() {
  const q = yield* Decode.query(TopActivityQuery)
  const found = yield* TopActivityRepo.top(q.days, q.limit, yield* Clock.currentTimeMillis)
  return yield* respondWith(TopActivity, { days: q.days, ...found })
})

const securityEvents = Effect.gen(function*() {
  const q = yield* Decode.query(SecurityEventsQuery)
  const recent = yield* SecurityEventLog
  return yield* respondWith(SecurityEvents, yield* recent.page(q.page * q.per_page, q.per_page))
})

export const routes = HttpRouter.empty.pipe(
  HttpRouter.get("/api/v1/admin/analytics/top", authed.admin(top)),
  HttpRouter.get("/api/v1/admin/security_events", authed.admin(securityEvents))
)
