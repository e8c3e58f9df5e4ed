import { Option } from "effect"

/**
 * Mattermost device ids (mattermost-compat.md 11.1): `<prefix>[-vN]:<native token>`, e.g. `android_rn-v2:<FCM token>`
 * or `apple_rn-v2:<APNs token>`. The part before the colon is what the push proxy routes by.
 */
export interface DeviceId {
  /** The part before the colon, e.g. `apple_rn-v2`. */
  readonly proxyPlatform: string
  readonly platform: "android" | "ios"
  readonly token: string
}

const DEVICE_ID = /^((apple|android)(_rn)?(beta)?(-v\d+)?):(.+)$/

export const parseDeviceId = (raw: string): Option.Option<DeviceId> => {
  const match = DEVICE_ID.exec(raw)
  if (match === null || match[6].trim() === "") return Option.none()
  return Option.some({ proxyPlatform: match[1], platform: match[2] === "apple" ? "ios" : "android", token: match[6] })
}

/** The proxy platform a natively registered device (POST /users/me/device) is addressed with. */
export const proxyPlatformFor = (platform: "android" | "ios") => platform === "ios" ? "apple_rn-v2" : "android_rn-v2"
