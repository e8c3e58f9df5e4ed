import { Effect, Schema } from "effect"
import type { Caller } from "../auth/Authenticate.ts"
import { CurrentCaller } from "../auth/Guards.ts"
import { badRequest } from "../http/ApiError.ts"
import * as Decode from "../http/Decode.ts"

/** What the management routes of incoming and outgoing hooks share: the hook named in the path, its update's body. */

const HookParams = Schema.Struct({ hook_id: Decode.Id })

/** A handler of /hooks/…/{hook_id}: `f` gets the caller and the hook's id. */
export const onHook = <A, E, R>(f: (caller: Caller, hookId: string) => Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const caller = yield* CurrentCaller
    const { hook_id } = yield* Decode.params(HookParams)
    return yield* f(caller, hook_id)
  })

/** PUT /hooks/…/{hook_id}: the whole hook in the body, which must be the one in the path. */
export const onHookUpdate = <B extends { readonly id: string }, I, A, E, R>(
  schema: Schema.Schema<B, I>,
  f: (caller: Caller, hookId: string, body: B) => Effect.Effect<A, E, R>
) =>
  onHook((caller, hookId) =>
    Effect.gen(function*() {
      const body = yield* Decode.body(schema)
      if (body.id !== hookId) return yield* badRequest("api.context.invalid_param.app_error", "Invalid or missing id parameter in request body.")
      return yield* f(caller, hookId, body)
    })
  )
