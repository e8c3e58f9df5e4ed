import { Context, Effect, Layer } from "effect"

/**
 * Whether this node is draining: it received SIGTERM/SIGINT and still serves every route, while readiness answers
 * 503 so that load balancers move new traffic away and every answer closes its connection (src/Server.ts). Read on
 * each request, hence a plain flag rather than a Ref.
 */
export interface DrainingService {
  readonly active: () => boolean
  readonly begin: Effect.Effect<void>
}

export class Draining extends Context.Tag("service/Draining")<Draining, DrainingService>() {}

export const layer = Layer.sync(Draining, () => {
  let active = false
  return { active: () => active, begin: Effect.sync(() => void (active = true)) }
})
