import { Option } from "effect"
import type { CallChannelState, CallsConfig, CallState, CallsVersion } from "../../schemas/wire/Calls.ts"
import type { CallRow, ChannelCallState } from "./CallRepo.ts"

/**
 * The Calls plugin's wire shapes (calls-common src/types/types.ts): the manifest plugins/webapp lists, the client
 * config, CallState and CallChannelState. Media is not served, so calls have no sessions, recordings or TURN.
 */
export const CALLS_PLUGIN_ID = "com.mattermost.calls"
export const CALLS_VERSION = "1.10.0"
export const CALLS_BUILD = "ringing-only"

export const callsManifest = {
  id: CALLS_PLUGIN_ID,
  name: "Calls",
  description: "Call ringing (no audio or video media).",
  version: CALLS_VERSION,
  min_server_version: "8.1.0",
  webapp: { bundle_path: `/static/plugins/${CALLS_PLUGIN_ID}/${CALLS_PLUGIN_ID}_bundle.js` }
}

/** Calls are enabled in a channel unless someone switched them off there. */
export const DEFAULT_ENABLED = true

export const callsVersion: CallsVersion = { version: CALLS_VERSION, build: CALLS_BUILD }

export const callsConfig: CallsConfig = {
  ICEServers: [],
  ICEServersConfigs: [],
  DefaultEnabled: DEFAULT_ENABLED,
  AllowEnableCalls: true,
  MaxCallParticipants: 0,
  NeedsTURNCredentials: false,
  AllowScreenSharing: false,
  EnableRecordings: false,
  MaxRecordingDuration: 60,
  sku_short_name: "",
  EnableSimulcast: false,
  EnableRinging: true,
  EnableTranscriptions: false,
  EnableLiveCaptions: false,
  HostControlsAllowed: false,
  EnableAV1: false,
  GroupCallsAllowed: true,
  EnableDCSignaling: false,
  TranscribeAPI: "whisper.cpp"
}

export const toCallState = (call: CallRow): CallState => ({
  id: call.id,
  channel_id: call.channel_id,
  start_at: call.start_at,
  users: [],
  states: [],
  sessions: [],
  thread_id: call.thread_id,
  post_id: call.post_id,
  screen_sharing_id: "",
  screen_sharing_session_id: "",
  owner_id: call.owner_id,
  host_id: call.owner_id,
  dismissed_notification: call.dismissed
})

export const toChannelState = (state: ChannelCallState): CallChannelState => ({
  channel_id: state.channel_id,
  enabled: Option.getOrElse(state.enabled, () => DEFAULT_ENABLED),
  ...(Option.isSome(state.call) ? { call: toCallState(state.call.value) } : {})
})
