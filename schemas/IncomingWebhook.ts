import { Schema } from "effect"
import { ListOf, MaxItems } from "./Limits.ts"
import type { IncomingWebhook } from "./wire/Webhook.ts"

/** Incoming webhooks on the wire (@mattermost/types integrations.d.ts IncomingWebhook) and their payloads. */

const Text = (max: number) => Schema.String.pipe(Schema.maxLength(max, { message: () => `at most ${max} characters` }))

export const HookFields = {
  display_name: Schema.optionalWith(Text(64), { default: () => "" }),
  description: Schema.optionalWith(Text(500), { default: () => "" }),
  username: Schema.optionalWith(Text(255), { default: () => "" }),
  icon_url: Schema.optionalWith(Text(1024), { default: () => "" }),
  channel_locked: Schema.optionalWith(Schema.Boolean, { default: () => false })
}

export const CreateIncomingWebhook = Schema.Struct({
  channel_id: Schema.String,
  user_id: Schema.optionalWith(Schema.String, { default: () => "" }),
  ...HookFields
})

export const UpdateIncomingWebhook = Schema.Struct({
  id: Schema.String,
  channel_id: Schema.String,
  ...HookFields
})

/**
 * What POST /hooks/{id} accepts: Mattermost's and Slack's payloads. Attachments are Slack message attachments,
 * kept as sent (the clients render them); only their shape (objects in an array) is checked.
 */
export const IncomingPayload = Schema.Struct({
  text: Schema.optionalWith(Schema.String, { default: () => "" }),
  username: Schema.optionalWith(Schema.String, { default: () => "" }),
  icon_url: Schema.optionalWith(Schema.String, { default: () => "" }),
  icon_emoji: Schema.optionalWith(Schema.String, { default: () => "" }),
  channel: Schema.optionalWith(Schema.String, { default: () => "" }),
  props: Schema.optionalWith(Schema.Record({ key: Schema.String, value: Schema.Unknown }), { default: () => ({}) }),
  attachments: Schema.optionalWith(ListOf(Schema.Record({ key: Schema.String, value: Schema.Unknown }), MaxItems.attachments), { default: () => [] }),
  type: Schema.optionalWith(Schema.String, { default: () => "" })
})
export type IncomingPayload = typeof IncomingPayload.Type

/** The record as answered: the wire Schema's type (schemas/wire/Webhook.ts). */
export type IncomingWebhookWire = IncomingWebhook
