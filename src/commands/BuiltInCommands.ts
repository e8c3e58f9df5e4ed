/**
 * The built-in commands Mattermost's server registers, with its autocomplete texts. Their behaviour lives in
 * StatusCommands.ts, MessageCommands.ts and ChannelCommands.ts; this list is what autocomplete offers and what a
 * custom command's trigger may not take.
 */
export interface BuiltIn {
  readonly trigger: string
  readonly displayName: string
  readonly desc: string
  readonly hint: string
  readonly autoComplete: boolean
}

const builtIn = (trigger: string, desc: string, hint = "", displayName = trigger, autoComplete = true): BuiltIn =>
  ({ trigger, displayName, desc, hint, autoComplete })

const JOIN_DESC = "Join the open channel"
const REMOVE_DESC = "Remove a member from the channel"

export const BUILT_INS: ReadonlyArray<BuiltIn> = [
  builtIn("away", "Set your status away"),
  builtIn("code", "Display text as a code block", "[text]"),
  builtIn("collapse", "Turn on auto-collapsing of image previews"),
  builtIn("dnd", "Do not disturb disables desktop and mobile push notifications."),
  builtIn("echo", "Echo back text from your account", "'message' [delay in seconds]"),
  builtIn("expand", "Turn off auto-collapsing of image previews"),
  builtIn("groupmsg", "Sends a Group Message to the specified users", "@[username1],@[username2] 'message'", "message"),
  builtIn("header", "Edit the channel header", "[text]"),
  builtIn("help", "Show Mattermost help message"),
  builtIn("invite", "Invite a user to a channel", "@[username]... ~[channel]..."),
  builtIn("join", JOIN_DESC, "~[channel]"),
  builtIn("kick", REMOVE_DESC, "@[username]"),
  builtIn("leave", "Leave the current channel"),
  builtIn("logout", "Logout of Mattermost"),
  builtIn("me", "Do an action", "[message]"),
  builtIn("msg", "Send Direct Message to a user", "@[username] 'message'", "message"),
  builtIn("mute", "Turns off desktop, email and push notifications for the current channel or the [channel] specified.", "~[channel]"),
  builtIn("offline", "Set your status offline"),
  builtIn("online", "Set your status online"),
  builtIn("open", JOIN_DESC, "~[channel]"),
  builtIn("purpose", "Edit the channel purpose", "[text]"),
  builtIn("remove", REMOVE_DESC, "@[username]"),
  builtIn("rename", "Rename the channel", "[text]"),
  builtIn("search", "Search text in messages", "[text]"),
  builtIn("settings", "Open the Settings dialog"),
  builtIn("shortcuts", "Displays a list of keyboard shortcuts"),
  builtIn("shrug", "Adds ¯\\_(ツ)_/¯ to your message", "[message]"),
  builtIn("status", "Set or clear your status", "[:emoji_name:] [status_message] or clear")
]

export const isBuiltIn = (trigger: string) => BUILT_INS.some((b) => b.trigger === trigger)

/** A built-in as Mattermost lists it among commands: a Command whose server-side fields are empty. */
export const builtInWire = (b: BuiltIn) => ({
  id: "",
  token: "",
  create_at: 0,
  update_at: 0,
  delete_at: 0,
  creator_id: "",
  team_id: "",
  trigger: b.trigger,
  method: "",
  username: "",
  icon_url: "",
  auto_complete: b.autoComplete,
  auto_complete_desc: b.desc,
  auto_complete_hint: b.hint,
  display_name: b.displayName,
  description: "",
  url: ""
})
