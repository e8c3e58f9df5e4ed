import { Schema } from "effect"
import { SubmitDialogAnswer } from "../Command.ts"

/**
 * Slash commands on the wire (@mattermost/types integrations.d.ts): Command, the regenerated token,
 * AutocompleteSuggestion, CommandResponse (POST /commands/execute) and SubmitDialogResponse.
 */

/**
 * The Command of @mattermost/types. Built-in commands have empty ids and times; what members see of a custom
 * command is sanitized (no token, URL, creator, method, username or icon).
 */
export const Command = Schema.Struct({
  id: Schema.String,
  token: Schema.String,
  create_at: Schema.Number,
  update_at: Schema.Number,
  delete_at: Schema.Number,
  creator_id: Schema.String,
  team_id: Schema.String,
  trigger: Schema.String,
  method: Schema.String,
  username: Schema.String,
  icon_url: Schema.String,
  auto_complete: Schema.Boolean,
  auto_complete_desc: Schema.String,
  auto_complete_hint: Schema.String,
  display_name: Schema.String,
  description: Schema.String,
  url: Schema.String
})
export type Command = typeof Command.Type

/** `PUT /commands/{id}/regen_token`: the command's new token. */
export const CommandToken = Schema.Struct({ token: Schema.String })
export type CommandToken = typeof CommandToken.Type

/** The AutocompleteSuggestion of @mattermost/types, Mattermost's capitalized keys; no `type`. */
export const AutocompleteSuggestion = Schema.Struct({
  Complete: Schema.String,
  Suggestion: Schema.String,
  Hint: Schema.String,
  Description: Schema.String,
  IconData: Schema.String
})
export type AutocompleteSuggestion = typeof AutocompleteSuggestion.Type

const answerFields = {
  response_type: Schema.String,
  text: Schema.String,
  username: Schema.String,
  channel_id: Schema.String,
  icon_url: Schema.String,
  type: Schema.String,
  props: Schema.NullOr(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  goto_location: Schema.String,
  trigger_id: Schema.String,
  skip_slack_parsing: Schema.Boolean,
  attachments: Schema.NullOr(Schema.Array(Schema.Record({ key: Schema.String, value: Schema.Unknown })))
}

/** One of a response's extra responses: a whole response without extras of its own. */
export const CommandExtraResponse = Schema.Struct(answerFields)
export type CommandExtraResponse = typeof CommandExtraResponse.Type

/**
 * The CommandResponse of @mattermost/types, as `POST /commands/execute` returns it: every field, null where the
 * integration (or built-in) gave no props, attachments or extra responses (Mattermost's Go nil).
 */
export const CommandResponse = Schema.Struct({
  ...answerFields,
  extra_responses: Schema.NullOr(Schema.Array(CommandExtraResponse))
})
export type CommandResponse = typeof CommandResponse.Type

/** The SubmitDialogResponse of @mattermost/types: the integration's answer to a dialog submission, as it came (the Schema it is decoded with, schemas/Command.ts). */
export const SubmitDialogResponse = SubmitDialogAnswer
export type SubmitDialogResponse = typeof SubmitDialogResponse.Type
