import { Option } from "effect"
import type { PushNotification } from "../../layers/PushSender.ts"

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
}

/** A message push: for a DM the title is the sender, otherwise the sender and the channel. */
export const messagePush = (input: MessageInput): PushTemplate => {
  const direct = input.channel.type === "D"
  const channelName = direct ? input.sender.name : input.channel.display_name
  const body = input.post.message.trim() === "" && input.post.hasFiles ? "sent an attachment" : preview(input.post.message)
  return {
    kind: "message",
    title: direct ? input.sender.name : `${input.sender.name} in ${input.channel.display_name}`,
    body,
    priority: "normal",
    androidChannel: Option.some("messages"),
    sound: Option.some("default"),
    badge: Option.some(input.badge),
    threadId: Option.some(input.post.root_id !== "" ? input.post.root_id : input.channel.id),
    data: {
      type: "message",
      version: "v2",
      category: "CAN_REPLY",
      channel_id: input.channel.id,
      channel_name: channelName,
      team_id: input.channel.team_id,
      post_id: input.post.id,
      root_id: input.post.root_id,
      sender_id: input.sender.id,
      sender_name: input.sender.name,
      message: body,
      badge: String(input.badge),
      is_crt_enabled: "true"
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
