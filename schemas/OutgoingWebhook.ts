import { Schema } from "effect"
import { ListOf, MaxItems } from "./Limits.ts"
import type { OutgoingWebhook } from "./wire/Webhook.ts"

/**
 * Outgoing webhooks on the wire (@mattermost/types integrations.d.ts OutgoingWebhook), the payload sent to their
 * callback URLs and the answer read back (Mattermost's OutgoingWebhookPayload and OutgoingWebhookResponse).
 */

const Text = (max: number) => Schema.String.pipe(Schema.maxLength(max, { message: () => `at most ${max} characters` }))

/** 0: the first word is a trigger word; 1: the first word starts with one. */
export const TRIGGER_EXACT = 0
export const TRIGGER_STARTS_WITH = 1

export const CONTENT_TYPES = ["", "application/json", "application/x-www-form-urlencoded"] as const

const HookFields = {
  channel_id: Schema.optionalWith(Schema.String, { default: () => "" }),
  trigger_words: Schema.optionalWith(ListOf(Schema.String, MaxItems.triggerWords), { default: () => [] }),
  trigger_when: Schema.optionalWith(Schema.Literal(TRIGGER_EXACT, TRIGGER_STARTS_WITH), { default: () => TRIGGER_EXACT }),
  callback_urls: Schema.optionalWith(ListOf(Schema.String, MaxItems.callbackUrls), { default: () => [] }),
  display_name: Schema.optionalWith(Text(64), { default: () => "" }),
  description: Schema.optionalWith(Text(500), { default: () => "" }),
  content_type: Schema.optionalWith(Schema.Literal(...CONTENT_TYPES), { default: () => "" }),
  username: Schema.optionalWith(Text(64), { default: () => "" }),
  icon_url: Schema.optionalWith(Text(1024), { default: () => "" })
}

export const CreateOutgoingWebhook = Schema.Struct({
  team_id: Schema.optionalWith(Schema.String, { default: () => "" }),
  creator_id: Schema.optionalWith(Schema.String, { default: () => "" }),
  ...HookFields
})
export type CreateOutgoingWebhook = typeof CreateOutgoingWebhook.Type

export const UpdateOutgoingWebhook = Schema.Struct({
  id: Schema.String,
  team_id: Schema.optionalWith(Schema.String, { default: () => "" }),
  ...HookFields
})
export type UpdateOutgoingWebhook = typeof UpdateOutgoingWebhook.Type

/** The fields a hook is made of, as create and update both give them. */
export type OutgoingHookInput = Omit<CreateOutgoingWebhook, "team_id" | "creator_id">

/** The record as answered, its token included: the wire Schema's type (schemas/wire/Webhook.ts). */
export type OutgoingWebhookWire = OutgoingWebhook

/** What a callback URL receives (JSON: `timestamp` in milliseconds; the form: in seconds, as Mattermost sends). */
export interface OutgoingPayload {
  readonly token: string
  readonly team_id: string
  readonly team_domain: string
  readonly channel_id: string
  readonly channel_name: string
  readonly timestamp: number
  readonly user_id: string
  readonly user_name: string
  readonly post_id: string
  readonly text: string
  readonly trigger_word: string
  /** Comma-separated, as Mattermost sends them. */
  readonly file_ids: string
}

/** A callback's answer; anything else in it is ignored, and an answer that is not this shape posts nothing. */
export const OutgoingAnswer = Schema.Struct({
  text: Schema.optional(Schema.NullOr(Schema.String)),
  username: Schema.optionalWith(Schema.String, { default: () => "" }),
  icon_url: Schema.optionalWith(Schema.String, { default: () => "" }),
  props: Schema.optionalWith(Schema.NullOr(Schema.Record({ key: Schema.String, value: Schema.Unknown })), { default: () => null }),
  attachments: Schema.optionalWith(Schema.NullOr(ListOf(Schema.Record({ key: Schema.String, value: Schema.Unknown }), MaxItems.attachments)), { default: () => null }),
  type: Schema.optionalWith(Schema.String, { default: () => "" }),
  response_type: Schema.optionalWith(Schema.String, { default: () => "" })
})
export type OutgoingAnswer = typeof OutgoingAnswer.Type
