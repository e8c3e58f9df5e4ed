import { Data, Option } from "effect"

/** The transport-neutral push model shared by the transports (see layers/PushSender.ts). */

export type Transport = "proxy" | "fcm" | "apns"

export type PushKind = "message" | "clear" | "call"

/** One push to one device, transport-neutral; each transport maps it onto its own wire format. */
export interface PushNotification {
  readonly kind: PushKind
  /** The native device token (the part after `prefix:` for Mattermost device ids). */
  readonly token: string
  readonly platform: "android" | "ios"
  /** The Mattermost platform prefix (`android_rn-v2`, `apple_rn-v2`, ...), which the push proxy routes by. */
  readonly proxyPlatform: string
  /** A PushKit (VoIP) token: iOS call pushes use the VoIP topic and push type. */
  readonly voip: boolean
  readonly title: string
  readonly body: string
  readonly priority: "normal" | "high"
  readonly androidChannel: Option.Option<string>
  readonly sound: Option.Option<string>
  readonly badge: Option.Option<number>
  /** Groups notifications on the device: APNs thread-id, FCM tag. */
  readonly threadId: Option.Option<string>
  /**
   * The data the app reads, all strings: the Mattermost push fields (ack_id, type, sub_type, version, server_id,
   * channel_id, team_id, post_id, root_id, sender_id, sender_name, channel_name, category, message, signature, ...)
   * and the kind's own fields (call_id, caller_name).
   */
  readonly data: Readonly<Record<string, string>>
}

export interface ProxyCredentials {
  readonly transport: "proxy"
  /** The push proxy's base URL; pushes go to `{url}/api/v1/send_push`. */
  readonly url: string
}

export interface ServiceAccount {
  readonly client_email: string
  readonly private_key: string
  readonly token_uri: string
}

export interface FcmCredentials {
  readonly transport: "fcm"
  readonly projectId: string
  /** Default `https://fcm.googleapis.com`. */
  readonly baseUrl: string
  /** A manually refreshed OAuth access token (the spec's push_android_access_token). */
  readonly accessToken: Option.Option<string>
  /** When present, access tokens are minted from it and renewed before they expire; wins over accessToken. */
  readonly serviceAccount: Option.Option<ServiceAccount>
}

export interface ApnsCredentials {
  readonly transport: "apns"
  readonly keyId: string
  readonly teamId: string
  readonly bundleId: string
  /** The .p8 key (PKCS#8 PEM, EC P-256). */
  readonly privateKey: string
  /** Default `https://api.push.apple.com`. */
  readonly baseUrl: string
  /** Extra trusted CA (PEM) for a private gateway or a test server. */
  readonly ca: Option.Option<string>
}

export type Credentials = ProxyCredentials | FcmCredentials | ApnsCredentials

export type SendOutcome =
  | { readonly _tag: "Sent" }
  /** The provider says the token is dead (FCM UNREGISTERED, APNs 410/BadDeviceToken, proxy REMOVE): forget it. */
  | { readonly _tag: "InvalidToken"; readonly reason: string }

export class PushSendError extends Data.TaggedError("PushSendError")<{
  readonly transport: Transport
  readonly reason: string
  /** 429, 5xx, timeouts, network errors and an open breaker are worth retrying; other refusals are not. */
  readonly retryable: boolean
  /** From Retry-After, or the breaker's remaining open time. */
  readonly retryAfterMs: Option.Option<number>
}> {
  override get message() {
    return `push via ${this.transport} failed: ${this.reason}`
  }
}
