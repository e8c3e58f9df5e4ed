import { Clock, Effect } from "effect"
import { actingAs } from "../integrations/ActingCaller.ts"
import type { IntegrationSwitches } from "../integrations/IntegrationSettings.ts"
import { createPost } from "../posts/CreatePost.ts"
import { MESSAGE_MAX_RUNES } from "../posts/MessageText.ts"
import { fromSlack } from "./SlackText.ts"

/**
 * A post made by a webhook (an incoming hook's payload, an outgoing hook's answer), as Mattermost's CreateWebhookPost:
 * the hook creator's, marked from_webhook, with the username and icon overrides only while their switches are on,
 * and Slack's markup made Mattermost's. Props a payload sends may not claim what only the server sets.
 */
export interface WebhookPost {
  readonly channelId: string
  readonly rootId: string
  readonly text: string
  readonly props: Readonly<Record<string, unknown>>
  readonly attachments: ReadonlyArray<unknown>
  readonly username: string
  readonly iconUrl: string
  readonly iconEmoji: string
}

const RESERVED = new Set(["from_webhook", "from_bot", "override_username", "override_icon_url", "override_icon_emoji"])

export const postAsWebhook = (
  switches: IntegrationSwitches,
  creator: { readonly id: string; readonly roles: string; readonly is_bot: boolean },
  post: WebhookPost,
  /**
   * Mattermost posts an outgoing hook's answer whether or not its creator is a member of the (public) channel the
   * hook watched: the server posts for the hook there, so the write check is the hook's, done when it was made.
   */
  options: {
    readonly anyChannel?: boolean
    /**
     * A message over the limit goes out as several posts (Mattermost's SplitWebhookPost) instead of being refused:
     * for an outgoing hook's answer, which nobody would see refused. Incoming hooks keep refusing it with a 400.
     */
    readonly split?: boolean
  } = {}
) =>
  Effect.gen(function*() {
    const now = yield* Clock.currentTimeMillis
    const base = yield* actingAs(creator, now)
    // The hook's own write: past Access's membership test, and allowed to post there whatever the creator's roles.
    const caller = options.anyChannel === true
      ? { ...base, isSystemAdmin: true, can: (permission: string) => permission === "create_post" || base.can(permission) }
      : base
    const props = Object.fromEntries(Object.entries(post.props).filter(([k]) => !RESERVED.has(k)))
    const trusted: Record<string, unknown> = { from_webhook: "true" }
    if (switches.enablePostUsernameOverride && post.username !== "") trusted.override_username = post.username
    if (switches.enablePostIconOverride && post.iconUrl !== "") trusted.override_icon_url = post.iconUrl
    if (switches.enablePostIconOverride && post.iconEmoji !== "") trusted.override_icon_emoji = post.iconEmoji
    const slack = yield* fromSlack(post.text, post.attachments)
    // In order, the attachments with the last.
    const parts = options.split === true ? splitMessage(slack.text) : [slack.text]
    const last = parts.length - 1
    for (let i = 0; i < last; i++) {
      yield* createPost(caller, { channel_id: post.channelId, message: parts[i], root_id: post.rootId, file_ids: [], props, pending_post_id: "", type: "" }, false, trusted)
    }
    if (slack.attachments.length > 0) trusted.attachments = slack.attachments
    return yield* createPost(caller, {
      channel_id: post.channelId,
      message: parts[last],
      root_id: post.rootId,
      file_ids: [],
      props,
      pending_post_id: "",
      type: ""
    }, false, trusted)
  })

/** The message in pieces of at most MESSAGE_MAX_RUNES characters (code points, as Mattermost counts runes). */
export const splitMessage = (text: string): ReadonlyArray<string> => {
  const runes = Array.from(text)
  if (runes.length <= MESSAGE_MAX_RUNES) return [text]
  const parts: Array<string> = []
  for (let i = 0; i < runes.length; i += MESSAGE_MAX_RUNES) parts.push(runes.slice(i, i + MESSAGE_MAX_RUNES).join(""))
  return parts
}
