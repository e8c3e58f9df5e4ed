import { Schema } from "effect"
import { ListOf, MaxItems } from "./Limits.ts"

/**
 * Slash commands as they come in (@mattermost/types integrations.d.ts Command, CommandArgs, CommandResponse) and
 * interactive dialogs (OpenDialogRequest, DialogSubmission, SubmitDialogResponse). What the server answers is
 * schemas/wire/Command.ts.
 */

const Text = (max: number) => Schema.String.pipe(Schema.maxLength(max, { message: () => `at most ${max} characters` }))
const optionalText = (max: number) => Schema.optionalWith(Text(max), { default: () => "" })

/** What a client may set on a command; everything else (id, token, creator, times) is the server's. */
export const CommandFields = {
  trigger: Schema.optionalWith(Schema.String, { default: () => "" }),
  method: Schema.optionalWith(Schema.String, { default: () => "P" }),
  url: Schema.optionalWith(Schema.String, { default: () => "" }),
  username: optionalText(64),
  icon_url: optionalText(1024),
  auto_complete: Schema.optionalWith(Schema.Boolean, { default: () => false }),
  auto_complete_desc: optionalText(1024),
  auto_complete_hint: optionalText(1024),
  display_name: Schema.optionalWith(Schema.String, { default: () => "" }),
  description: Schema.optionalWith(Schema.String, { default: () => "" })
}

export const CreateCommand = Schema.Struct({ team_id: Schema.optionalWith(Schema.String, { default: () => "" }), ...CommandFields })
export type CreateCommand = typeof CreateCommand.Type

export const UpdateCommand = Schema.Struct({
  id: Schema.optionalWith(Schema.String, { default: () => "" }),
  team_id: Schema.optionalWith(Schema.String, { default: () => "" }),
  ...CommandFields
})
export type UpdateCommand = typeof UpdateCommand.Type

export const MoveCommand = Schema.Struct({ team_id: Schema.String })

/** POST /commands/execute (Mattermost's CommandArgs as clients send them). */
export const ExecuteCommand = Schema.Struct({
  command: Schema.optionalWith(Schema.String.pipe(Schema.maxLength(16384)), { default: () => "" }),
  channel_id: Schema.optionalWith(Schema.String, { default: () => "" }),
  team_id: Schema.optionalWith(Schema.String, { default: () => "" }),
  root_id: Schema.optionalWith(Schema.String, { default: () => "" }),
  parent_id: Schema.optionalWith(Schema.String, { default: () => "" })
})
export type ExecuteCommand = typeof ExecuteCommand.Type

const Attachments = ListOf(Schema.Record({ key: Schema.String, value: Schema.Unknown }), MaxItems.attachments)

const responseFields = {
  response_type: Schema.optionalWith(Schema.String, { default: () => "" }),
  text: Schema.optionalWith(Schema.String, { default: () => "" }),
  username: Schema.optionalWith(Schema.String, { default: () => "" }),
  channel_id: Schema.optionalWith(Schema.String, { default: () => "" }),
  icon_url: Schema.optionalWith(Schema.String, { default: () => "" }),
  type: Schema.optionalWith(Schema.String, { default: () => "" }),
  props: Schema.optionalWith(Schema.NullOr(Schema.Record({ key: Schema.String, value: Schema.Unknown })), { default: () => null }),
  goto_location: Schema.optionalWith(Schema.String, { default: () => "" }),
  trigger_id: Schema.optionalWith(Schema.String, { default: () => "" }),
  skip_slack_parsing: Schema.optionalWith(Schema.Boolean, { default: () => false }),
  attachments: Schema.optionalWith(Schema.NullOr(Attachments), { default: () => null })
}

/** An extra response is a whole response without further extras (Mattermost ignores nested ones). */
export const ExtraResponse = Schema.Struct(responseFields)

/** What an integration answers (to the command request, or later through response_url). */
export const CommandResponse = Schema.Struct({
  ...responseFields,
  extra_responses: Schema.optionalWith(Schema.NullOr(ListOf(ExtraResponse, MaxItems.extraResponses)), { default: () => null })
})
export type CommandResponse = typeof CommandResponse.Type
export type CommandAnswer = typeof ExtraResponse.Type

const DialogOption = Schema.Struct({ text: Schema.String, value: Schema.Unknown })

export const DialogElement = Schema.Struct({
  display_name: Schema.String,
  name: Schema.String,
  type: Schema.String,
  subtype: Schema.optional(Schema.String),
  default: Schema.optional(Schema.Unknown),
  placeholder: Schema.optional(Schema.String),
  help_text: Schema.optional(Schema.String),
  optional: Schema.optional(Schema.Boolean),
  min_length: Schema.optional(Schema.Number),
  max_length: Schema.optional(Schema.Number),
  data_source: Schema.optional(Schema.String),
  options: Schema.optional(Schema.NullOr(ListOf(DialogOption, MaxItems.dialogOptions)))
}, Schema.Record({ key: Schema.String, value: Schema.Unknown }))

export const Dialog = Schema.Struct({
  callback_id: Schema.optional(Schema.String),
  title: Schema.optionalWith(Schema.String, { default: () => "" }),
  introduction_text: Schema.optional(Schema.String),
  icon_url: Schema.optional(Schema.String),
  elements: Schema.optional(Schema.NullOr(ListOf(DialogElement, MaxItems.dialogElements))),
  submit_label: Schema.optional(Schema.String),
  notify_on_cancel: Schema.optional(Schema.Boolean),
  state: Schema.optional(Schema.String)
}, Schema.Record({ key: Schema.String, value: Schema.Unknown }))
export type Dialog = typeof Dialog.Type

export const OpenDialog = Schema.Struct({
  trigger_id: Schema.optionalWith(Schema.String, { default: () => "" }),
  url: Schema.optionalWith(Schema.String, { default: () => "" }),
  dialog: Dialog
})

export const SubmitDialog = Schema.Struct({
  url: Schema.optionalWith(Schema.String, { default: () => "" }),
  callback_id: Schema.optionalWith(Schema.String, { default: () => "" }),
  state: Schema.optionalWith(Schema.String, { default: () => "" }),
  channel_id: Schema.optionalWith(Schema.String, { default: () => "" }),
  team_id: Schema.optionalWith(Schema.String, { default: () => "" }),
  submission: Schema.optionalWith(Schema.Record({ key: Schema.String, value: Schema.Unknown }), { default: () => ({}) }),
  cancelled: Schema.optionalWith(Schema.Boolean, { default: () => false })
})

/** The integration's answer to a submission; an empty or unreadable answer is an empty one, as in Mattermost. */
export const SubmitDialogAnswer = Schema.Struct({
  error: Schema.optional(Schema.String),
  errors: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String })),
  type: Schema.optional(Schema.String),
  form: Schema.optional(Schema.Unknown)
})
export type SubmitDialogRequest = typeof SubmitDialog.Type
