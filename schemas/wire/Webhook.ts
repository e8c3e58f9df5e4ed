import { Schema } from "effect"

/** The IncomingWebhook of @mattermost/types (src/webhooks/IncomingWebhooks.ts `toWire`). */
export const IncomingWebhook = Schema.Struct({
  id: Schema.String,
  create_at: Schema.Number,
  update_at: Schema.Number,
  delete_at: Schema.Number,
  last_used: Schema.Number,
  user_id: Schema.String,
  channel_id: Schema.String,
  team_id: Schema.String,
  display_name: Schema.String,
  description: Schema.String,
  username: Schema.String,
  icon_url: Schema.String,
  channel_locked: Schema.Boolean
})
export type IncomingWebhook = typeof IncomingWebhook.Type

/** `GET /hooks/incoming?include_total_count=true`: the IncomingWebhooksWithCount of @mattermost/types. */
export const IncomingWebhooksWithCount = Schema.Struct({
  incoming_webhooks: Schema.Array(IncomingWebhook),
  total_count: Schema.Number
})
export type IncomingWebhooksWithCount = typeof IncomingWebhooksWithCount.Type

/** The OutgoingWebhook of @mattermost/types (src/webhooks/OutgoingWebhooks.ts `toWire`), its token included. */
export const OutgoingWebhook = Schema.Struct({
  id: Schema.String,
  token: Schema.String,
  create_at: Schema.Number,
  update_at: Schema.Number,
  delete_at: Schema.Number,
  creator_id: Schema.String,
  channel_id: Schema.String,
  team_id: Schema.String,
  trigger_words: Schema.Array(Schema.String),
  trigger_when: Schema.Number,
  callback_urls: Schema.Array(Schema.String),
  display_name: Schema.String,
  description: Schema.String,
  content_type: Schema.String,
  username: Schema.String,
  icon_url: Schema.String
})
export type OutgoingWebhook = typeof OutgoingWebhook.Type
