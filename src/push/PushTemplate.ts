import { Option } from "effect"
import type { PushNotification } from "../../layers/PushSender.ts"
import type { PushContents } from "../system/RuntimeSettings.ts"

/**
 * What a push says, before it is addressed to a device: the queue adds the token, the ack id, the server id and the
 * signature. Titles, bodies, priorities and Android channels follow the spec's Push notifications table.
 */
export type PushTemplate = Pick<
  PushNotification,
  "kind" | "title" | "body" | "priority" | "androidChannel" | "sound" | "badge" | "threadId" | "data"
>

export const PREVIEW_LENGTH = 100

/** The first 100 characters (code points, so that an emoji is never cut in half). */
export const preview = (message: string) => [...message].slice(0, PREVIEW_LENGTH).join("")

export interface MessageInput {
  readonly post: { readonly id: string; readonly root_id: string; readonly message: string; readonly hasFiles: boolean }
  readonly channel: { readonly id: string; readonly type: string; readonly team_id: string; readonly display_name: string }
  readonly sender: { readonly id: string; readonly name: string }
  readonly badge: number
  /** EmailSettings.PushNotificationContents; full when not given. */
  readonly contents?: PushContents
  /** How the post concerns the recipient, for the generic texts: Mattermost's order of precedence. */
  readonly mention?: "channel" | "explicit" | "none"
}

/** Mattermost's text of an id-loaded push: the app loads the message itself. */
export const ID_LOADED_MESSAGE = "You've received a new message."

/**
 * Mattermost's getPushNotificationMessage: with `full` the message itself (the sender's name before it outside direct
 * messages); with the generic settings only who did what, never the words.
 */
const genericText = (input: MessageInput, direct: boolean) => {
  if (direct) return "sent you a message."
  if (input.mention === "channel") return `${input.sender.name} notified the channel.`
  if (input.mention === "explicit") return `${input.sender.name} mentioned you.`
  return `${input.sender.name} posted a message.`
}

/**
 * A message push: for a DM the title is the sender, otherwise the sender and the channel. EmailSettings.
 * PushNotificationContents decides what leaves the server, as in Mattermost: `full` the message, `generic` a generic
 * text with the sender and channel names, `generic_no_channel` the same without the channel's name, `id_loaded` only
 * ids and a fixed text (nothing about the post, its author or channel passes through the push services).
 */
export const messagePush = (input: MessageInput): PushTemplate => {
  const contents = input.contents ?? "full"
  const direct = input.channel.type === "D"
  const base = {
    kind: "message" as const,
    priority: "normal" as const,
    androidChannel: Option.some("messages"),
    sound: Option.some("default"),
    badge: Option.some(input.badge),
    threadId: Option.some(input.post.root_id !== "" ? input.post.root_id : input.channel.id)
  }
  const ids = {
    type: "message",
    version: "v2",
    category: "CAN_REPLY",
    channel_id: input.channel.id,
    team_id: input.channel.team_id,
    post_id: input.post.id,
    root_id: input.post.root_id,
    sender_id: input.sender.id,
    badge: String(input.badge),
    is_crt_enabled: "true"
  }
  if (contents === "id_loaded") {
    return { ...base, title: "", body: ID_LOADED_MESSAGE, data: { ...ids, id_loaded: "true", message: ID_LOADED_MESSAGE } }
  }
  const showChannel = contents !== "generic_no_channel" || direct
  const channelName = direct ? input.sender.name : input.channel.display_name
  const attachmentOnly = input.post.message.trim() === "" && input.post.hasFiles
  const body = attachmentOnly ? "sent an attachment" : contents === "full" ? preview(input.post.message) : genericText(input, direct)
  return {
    ...base,
    title: direct || !showChannel ? input.sender.name : `${input.sender.name} in ${input.channel.display_name}`,
    body,
    data: {
      ...ids,
      ...(showChannel ? { channel_name: channelName } : {}),
      sender_name: input.sender.name,
      message: body
    }
  }
}

/** Tells the user's other devices that a channel was read there: remove its notifications, update the badge. */
export const clearPush = (channelId: string, badge: number): PushTemplate => ({
  kind: "clear",
  title: "",
  body: "",
  priority: "normal",
  androidChannel: Option.none(),
  sound: Option.none(),
  badge: Option.some(badge),
  threadId: Option.none(),
  data: { type: "clear", version: "v2", channel_id: channelId, badge: String(badge), is_crt_enabled: "true" }
})

export interface CallInput {
  readonly callId: string
  readonly channel: { readonly id: string; readonly team_id: string; readonly display_name: string; readonly type: string }
  readonly caller: { readonly id: string; readonly name: string }
  readonly threadId: string
  readonly postId: string
}

export const RING_PROMPT = "Tap to answer."

/** The ringing push: high priority, the `calls` channel, VoIP on iOS (chosen by the queue per device). */
export const callPush = (input: CallInput): PushTemplate => ({
  kind: "call",
  title: `incoming call from ${input.caller.name}`,
  body: RING_PROMPT,
  priority: "high",
  androidChannel: Option.some("calls"),
  sound: Option.some("default"),
  badge: Option.none(),
  threadId: Option.some(input.channel.id),
  data: {
    type: "message",
    sub_type: "calls",
    version: "v2",
    call_id: input.callId,
    channel_id: input.channel.id,
    channel_name: input.channel.type === "D" ? input.caller.name : input.channel.display_name,
    team_id: input.channel.team_id,
    caller_name: input.caller.name,
    sender_id: input.caller.id,
    sender_name: input.caller.name,
    post_id: input.postId,
    root_id: input.threadId,
    thread_id: input.threadId,
    message: `incoming call from ${input.caller.name}`,
    is_crt_enabled: "true"
  }
})
