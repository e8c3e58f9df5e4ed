import type { CommandAnswer } from "../../schemas/Command.ts"
import type { ChannelRef } from "../access/Access.ts"
import type { Caller } from "../auth/Authenticate.ts"

/** Where and by whom a command runs (Mattermost's CommandArgs once checked). */
export interface CommandContext {
  readonly caller: Caller
  /** The channel the command was typed in; the caller is a member. */
  readonly channel: ChannelRef
  /** The channel's team, or for a DM or GM the team the client named ("" if none). */
  readonly teamId: string
  readonly rootId: string
  /** The public base URL, for goto_location and response_url. */
  readonly siteUrl: string
}

/** A CommandResponse with Mattermost's zero values, as its server encodes one. */
export const answer = (fields: Partial<CommandAnswer> = {}): CommandAnswer => ({
  response_type: "",
  text: "",
  username: "",
  channel_id: "",
  icon_url: "",
  type: "",
  props: null,
  goto_location: "",
  trigger_id: "",
  skip_slack_parsing: false,
  attachments: null,
  ...fields
})

export const ephemeral = (text: string) => answer({ response_type: "ephemeral", text })
export const inChannel = (text: string, fields: Partial<CommandAnswer> = {}) => answer({ response_type: "in_channel", text, ...fields })
export const goTo = (location: string) => answer({ goto_location: location })
