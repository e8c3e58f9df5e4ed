import { Schema } from "effect"

/**
 * The Calls plugin's wire shapes under /plugins/com.mattermost.calls (calls-common src/types/types.ts; not in
 * @mattermost/types). Media is not served here, so calls have no participants, sessions, screen sharing or TURN.
 */

/** `GET /version`. */
export const CallsVersion = Schema.Struct({ version: Schema.String, build: Schema.String })
export type CallsVersion = typeof CallsVersion.Type

/** An ICE server as RTCIceServer describes it. */
const IceServer = Schema.Struct({
  urls: Schema.Union(Schema.String, Schema.Array(Schema.String)),
  username: Schema.optional(Schema.String),
  credential: Schema.optional(Schema.String)
})

/** `GET /config`: the plugin's client config. */
export const CallsConfig = Schema.Struct({
  ICEServers: Schema.Array(Schema.String),
  ICEServersConfigs: Schema.Array(IceServer),
  DefaultEnabled: Schema.Boolean,
  AllowEnableCalls: Schema.Boolean,
  MaxCallParticipants: Schema.Number,
  NeedsTURNCredentials: Schema.Boolean,
  AllowScreenSharing: Schema.Boolean,
  EnableRecordings: Schema.Boolean,
  MaxRecordingDuration: Schema.Number,
  sku_short_name: Schema.String,
  EnableSimulcast: Schema.Boolean,
  EnableRinging: Schema.Boolean,
  EnableTranscriptions: Schema.Boolean,
  EnableLiveCaptions: Schema.Boolean,
  HostControlsAllowed: Schema.Boolean,
  EnableAV1: Schema.Boolean,
  GroupCallsAllowed: Schema.Boolean,
  EnableDCSignaling: Schema.Boolean,
  TranscribeAPI: Schema.String
})
export type CallsConfig = typeof CallsConfig.Type

/**
 * CallState: a channel's ongoing call. `users`, `states` and `sessions` stay empty (nobody joins over media here);
 * `dismissed_notification` maps the users who dismissed its ringing to true.
 */
export const CallState = Schema.Struct({
  id: Schema.String,
  channel_id: Schema.String,
  start_at: Schema.Number,
  users: Schema.Array(Schema.String),
  states: Schema.Array(Schema.Unknown),
  sessions: Schema.Array(Schema.Unknown),
  thread_id: Schema.String,
  post_id: Schema.String,
  screen_sharing_id: Schema.String,
  screen_sharing_session_id: Schema.String,
  owner_id: Schema.String,
  host_id: Schema.String,
  dismissed_notification: Schema.Record({ key: Schema.String, value: Schema.Boolean })
})
export type CallState = typeof CallState.Type

/**
 * CallChannelState: whether calls are enabled in a channel, and its call when one is ongoing (the key left out
 * otherwise). `POST /{channel_id}` answers the switch in this shape, without a call.
 */
export const CallChannelState = Schema.Struct({
  channel_id: Schema.String,
  enabled: Schema.Boolean,
  call: Schema.optional(CallState)
})
export type CallChannelState = typeof CallChannelState.Type
