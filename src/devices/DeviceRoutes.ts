import { HttpRouter } from "@effect/platform"
import { Clock, Effect, Option, Schema } from "effect"
import { authed, CurrentCaller } from "../auth/Guards.ts"
import { Sessions } from "../auth/Sessions.ts"
import { badRequest } from "../http/ApiError.ts"
import * as Decode from "../http/Decode.ts"
import { ok, respondWith } from "../http/Respond.ts"
import { DeviceRegistration } from "../../schemas/wire/Device.ts"
import { parseDeviceId } from "./DeviceId.ts"
import { DeviceRepo } from "./DeviceRepo.ts"
import { runtimeSettings, sessionLengthsMs } from "../system/RuntimeSettings.ts"

/**
 * Device registration (mattermost-compat.md 11.2, the spec's Device registration) and push acknowledgements.
 */

const invalidField = (field: string, why: string) =>
  badRequest("api.context.invalid_body_param.app_error", `Invalid or missing ${field} in request body: ${why}.`)

const SEMVER = /^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$/

const SessionDeviceBody = Schema.Struct({
  device_id: Schema.optional(Schema.String),
  device_notification_disabled: Schema.optional(Schema.String),
  mobile_version: Schema.optional(Schema.String),
  voip_device_id: Schema.optional(Schema.String)
})

/**
 * PUT /api/v4/users/sessions/device: attaches a Mattermost device id to the caller's session and, as Mattermost
 * does, gives the session the mobile session length from now; ends the user's other sessions on that device (the
 * device changed accounts or the app was reinstalled), merges the session props the app sends, and records the
 * registration. `{}` changes nothing.
 */
const attachSessionDevice = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const input = yield* Decode.body(SessionDeviceBody)
  const disabled = input.device_notification_disabled
  if (disabled !== undefined && disabled !== "true" && disabled !== "false") {
    return yield* invalidField("device_notification_disabled", "expected \"true\" or \"false\"")
  }
  if (input.mobile_version !== undefined && input.mobile_version !== "" && !SEMVER.test(input.mobile_version)) {
    return yield* invalidField("mobile_version", "expected a semantic version such as 2.43.0")
  }
  const device = input.device_id === undefined || input.device_id === "" ? Option.none() : parseDeviceId(input.device_id)
  if (input.device_id !== undefined && input.device_id !== "" && Option.isNone(device)) {
    return yield* invalidField("device_id", "expected <platform>-v2:<token>, e.g. android_rn-v2:<token>")
  }
  if (input.voip_device_id !== undefined && input.voip_device_id !== "") {
    const voip = parseDeviceId(input.voip_device_id)
    if (Option.isNone(voip) || voip.value.platform !== "ios") {
      return yield* invalidField("voip_device_id", "expected an Apple device id, e.g. apple_rn-v2:<token>")
    }
  }
  const props: Record<string, string> = {}
  if (disabled !== undefined) props.device_notification_disabled = disabled
  if (input.mobile_version !== undefined && input.mobile_version !== "") props.mobile_version = input.mobile_version
  if (input.voip_device_id !== undefined) props.voip_device_id = input.voip_device_id
  if (Option.isNone(device) && Object.keys(props).length === 0) return ok()

  const sessions = yield* Sessions
  const devices = yield* DeviceRepo
  const now = yield* Clock.currentTimeMillis
  const session = caller.session
  if (Option.isSome(device) && input.device_id !== undefined) {
    yield* sessions.revokeForUser(caller.userId, { exceptSessionId: session.id, deviceId: input.device_id })
    yield* sessions.updateDevice(session.id, input.device_id, props, { expiresAt: now + sessionLengthsMs(yield* runtimeSettings).mobile })
    yield* devices.recordSessionDevice({
      userId: caller.userId,
      sessionId: session.id,
      deviceId: input.device_id,
      token: device.value.token,
      platform: device.value.platform,
      now
    })
  } else {
    yield* sessions.updateDevice(session.id, session.device_id, props)
    const current = parseDeviceId(session.device_id)
    if (Option.isSome(current)) {
      yield* devices.recordSessionDevice({
        userId: caller.userId,
        sessionId: session.id,
        deviceId: session.device_id,
        token: current.value.token,
        platform: current.value.platform,
        now
      })
    }
  }
  return ok()
})

const NativeDeviceBody = Schema.Struct({
  device_id: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(512)),
  token: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(4096)),
  platform: Schema.String
})

/**
 * POST /api/v4/users/me/device (the spec's registration): a per-user registration keyed by the app's device id.
 * Clients call it at login, when the token changes and periodically; each call refreshes the last-seen time.
 */
const registerDevice = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const input = yield* Decode.body(NativeDeviceBody)
  if (input.platform !== "ios" && input.platform !== "android") {
    return yield* invalidField("platform", "expected \"ios\" or \"android\"")
  }
  const devices = yield* DeviceRepo
  const now = yield* Clock.currentTimeMillis
  const saved = yield* devices.registerNative({
    userId: caller.userId,
    deviceId: input.device_id,
    token: input.token,
    platform: input.platform,
    now
  })
  return yield* respondWith(DeviceRegistration, { user_id: caller.userId, device_id: input.device_id, platform: input.platform, ...saved })
})

const AckBody = Schema.Struct({
  id: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(64)),
  received_at: Schema.optionalWith(Schema.Number, { default: () => 0 }),
  platform: Schema.optionalWith(Schema.String, { default: () => "" }),
  type: Schema.optionalWith(Schema.String, { default: () => "" }),
  post_id: Schema.optionalWith(Schema.String, { default: () => "" }),
  is_id_loaded: Schema.optionalWith(Schema.Boolean, { default: () => false })
})

/**
 * POST /api/v4/notifications/ack: the app confirms a push arrived. This server never sends id-loaded pushes (the
 * content travels in the push), so there is nothing to load and the answer is the plain OK.
 */
const ack = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const input = yield* Decode.body(AckBody)
  const devices = yield* DeviceRepo
  const now = yield* Clock.currentTimeMillis
  yield* devices.recordAck({
    ackId: input.id,
    userId: caller.userId,
    type: input.type.slice(0, 32),
    postId: input.post_id.slice(0, 64),
    platform: input.platform.slice(0, 64),
    receivedAt: input.received_at > 0 ? input.received_at : now,
    now
  })
  return ok()
})

export const routes = HttpRouter.empty.pipe(
  HttpRouter.put("/api/v4/users/sessions/device", authed(attachSessionDevice)),
  HttpRouter.post("/api/v4/users/me/device", authed(registerDevice)),
  HttpRouter.post("/api/v4/notifications/ack", authed(ack))
)
