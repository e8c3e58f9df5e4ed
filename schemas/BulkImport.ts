import { Schema } from "effect"

/**
 * Mattermost's bulk import format, version 1 (server/channels/app/imports/import_types.go): one JSON object per line,
 * `{"type": "...", "<type>": {...}}`. Field names are Mattermost's; fields this service does not keep are accepted
 * and ignored (the decoder ignores unknown keys), so an mmctl export imports as it is. Both the `members` list and the
 * newer `participants` objects of direct channels are read.
 */
const Str = Schema.String
const opt = <S extends Schema.Schema.Any>(s: S) => Schema.optional(Schema.NullOr(s))
const Millis = Schema.Number.pipe(Schema.int({ message: () => "an integer number of milliseconds" }), Schema.nonNegative({ message: () => "a time in milliseconds (not negative)" }))
const Count = Schema.Number.pipe(Schema.int(), Schema.nonNegative())

export const Team = Schema.Struct({
  name: Str,
  display_name: Str,
  type: Schema.Literal("O", "I"),
  description: opt(Str),
  allow_open_invite: opt(Schema.Boolean)
})
export type Team = typeof Team.Type

export const Channel = Schema.Struct({
  team: Str,
  name: Str,
  display_name: Str,
  type: Schema.Literal("O", "P"),
  header: opt(Str),
  purpose: opt(Str),
  deleted_at: opt(Millis),
  /** This service's addition (Mattermost's format has none): the creator's username, kept as the channel's creator_id. */
  creator: opt(Str)
})
export type Channel = typeof Channel.Type

const ChannelNotifyProps = Schema.Struct({
  desktop: opt(Str),
  mobile: opt(Str),
  mark_unread: opt(Str),
  email: opt(Str),
  ignore_channel_mentions: opt(Str),
  channel_auto_follow_threads: opt(Str)
})

/** The read state of a member; Mattermost's exporter spells the urgent count "urgend_mention_count". */
const ReadState = {
  mention_count: opt(Count),
  mention_count_root: opt(Count),
  urgend_mention_count: opt(Count),
  msg_count: opt(Count),
  msg_count_root: opt(Count),
  last_viewed_at: opt(Millis)
}

export const UserChannel = Schema.Struct({
  name: Str,
  roles: opt(Str),
  notify_props: opt(ChannelNotifyProps),
  favorite: opt(Schema.Boolean),
  ...ReadState
})
export type UserChannel = typeof UserChannel.Type

export const UserTeam = Schema.Struct({
  name: Str,
  roles: opt(Str),
  theme: opt(Str),
  channels: opt(Schema.Array(UserChannel))
})

export const UserNotifyProps = Schema.Struct({
  desktop: opt(Str),
  desktop_sound: opt(Str),
  email: opt(Str),
  mobile: opt(Str),
  mobile_push_status: opt(Str),
  channel: opt(Str),
  comments: opt(Str),
  mention_keys: opt(Str)
})

/** User fields that Mattermost keeps as preferences: [field, category, preference name]. */
export const PREFERENCE_FIELDS = [
  ["theme", "theme", ""],
  ["military_time", "display_settings", "use_military_time"],
  ["link_previews", "display_settings", "collapse_previews"],
  ["message_display", "display_settings", "message_display"],
  ["collapse_consecutive_messages", "display_settings", "collapse_consecutive_messages"],
  ["colorize_usernames", "display_settings", "colorize_usernames"],
  ["channel_display_mode", "display_settings", "channel_display_mode"],
  ["name_format", "display_settings", "name_format"],
  ["email_interval", "notifications", "email_interval"],
  ["feature_enabled_markdown_preview", "advanced_settings", "feature_enabled_markdown_preview"],
  ["formatting", "advanced_settings", "formatting"],
  ["send_on_ctrl_enter", "advanced_settings", "send_on_ctrl_enter"],
  ["code_block_ctrl_enter", "advanced_settings", "code_block_ctrl_enter"],
  ["show_join_leave", "advanced_settings", "join_leave"],
  ["sync_drafts", "advanced_settings", "sync_drafts"],
  ["show_unread_scroll_position", "advanced_settings", "unread_scroll_position"],
  ["show_unread_section", "sidebar_settings", "show_unread_section"],
  ["limit_visible_dms_gms", "sidebar_settings", "limit_visible_dms_gms"]
] as const

export const User = Schema.Struct({
  profile_image: opt(Str),
  username: Str,
  email: Str,
  auth_service: opt(Str),
  auth_data: opt(Str),
  password: opt(Str),
  nickname: opt(Str),
  first_name: opt(Str),
  last_name: opt(Str),
  position: opt(Str),
  roles: opt(Str),
  locale: opt(Str),
  delete_at: opt(Millis),
  teams: opt(Schema.Array(UserTeam)),
  notify_props: opt(UserNotifyProps),
  tutorial_step: opt(Str),
  ...Object.fromEntries(PREFERENCE_FIELDS.map(([field]) => [field, opt(Str)])) as {
    readonly [K in typeof PREFERENCE_FIELDS[number][0]]: ReturnType<typeof opt<typeof Str>>
  }
})
export type User = typeof User.Type

/** A bot account; `owner` names the user (or plugin) that manages it. */
export const Bot = Schema.Struct({
  username: Str,
  owner: Str,
  display_name: opt(Str),
  description: opt(Str),
  delete_at: opt(Millis)
})
export type Bot = typeof Bot.Type

export const Reaction = Schema.Struct({ user: Str, emoji_name: Str, create_at: Millis })
export type Reaction = typeof Reaction.Type

export const Attachment = Schema.Struct({ path: Str })
export type Attachment = typeof Attachment.Type

export const ThreadFollower = Schema.Struct({ user: Str, last_viewed: opt(Millis), unread_mentions: opt(Count) })

const Props = Schema.Record({ key: Str, value: Schema.Unknown })

const PostContent = {
  user: Str,
  type: opt(Str),
  message: Schema.optionalWith(Str, { default: () => "" }),
  props: opt(Props),
  create_at: Millis,
  edit_at: opt(Millis),
  flagged_by: opt(Schema.Array(Str)),
  reactions: opt(Schema.Array(Reaction)),
  attachments: opt(Schema.Array(Attachment)),
  is_pinned: opt(Schema.Boolean)
}

export const Reply = Schema.Struct(PostContent)
export type Reply = typeof Reply.Type

const RootContent = { ...PostContent, replies: opt(Schema.Array(Reply)), thread_followers: opt(Schema.Array(ThreadFollower)) }

export const Post = Schema.Struct({ team: Str, channel: Str, ...RootContent })
export type Post = typeof Post.Type

export const DirectPost = Schema.Struct({ channel_members: Schema.Array(Str), ...RootContent })
export type DirectPost = typeof DirectPost.Type

export const DirectParticipant = Schema.Struct({ username: Str, notify_props: opt(ChannelNotifyProps), ...ReadState })
export type DirectParticipant = typeof DirectParticipant.Type

export const DirectChannel = Schema.Struct({
  members: opt(Schema.Array(Str)),
  participants: opt(Schema.Array(DirectParticipant)),
  favorited_by: opt(Schema.Array(Str)),
  shown_by: opt(Schema.Array(Str)),
  header: opt(Str)
})
export type DirectChannel = typeof DirectChannel.Type

export const Emoji = Schema.Struct({ name: Str, image: Str })
export type Emoji = typeof Emoji.Type

export const Version = Schema.Number.pipe(Schema.int())

/** The line, by its type; `scheme` and `role` lines are read but not imported (reported as skipped). */
export const Line = Schema.Union(
  Schema.Struct({ type: Schema.Literal("version"), version: Version }),
  Schema.Struct({ type: Schema.Literal("team"), team: Team }),
  Schema.Struct({ type: Schema.Literal("channel"), channel: Channel }),
  Schema.Struct({ type: Schema.Literal("user"), user: User }),
  Schema.Struct({ type: Schema.Literal("bot"), bot: Bot }),
  Schema.Struct({ type: Schema.Literal("post"), post: Post }),
  Schema.Struct({ type: Schema.Literal("direct_channel"), direct_channel: DirectChannel }),
  Schema.Struct({ type: Schema.Literal("direct_post"), direct_post: DirectPost }),
  Schema.Struct({ type: Schema.Literal("emoji"), emoji: Emoji }),
  Schema.Struct({ type: Schema.Literal("scheme", "role") })
)
export type Line = typeof Line.Type

export const LINE_TYPES = ["version", "team", "channel", "user", "post", "direct_channel", "direct_post", "emoji", "scheme", "role", "bot"] as const

/** GET /api/v1/admin/import/{id}: an import job as it runs and when it ended. */
/** What a Slack import job read from the export (src/imports/slack/Convert.ts), on the job once it has ended. */
export const SlackImportReport = Schema.Struct({
  people: Schema.Number,
  matched: Schema.Number,
  bots: Schema.Number,
  channels: Schema.Number,
  direct: Schema.Number,
  messages: Schema.Number,
  files: Schema.Number,
  linked_total: Schema.Number,
  /** Files the export only links to (the first 1000): fetch them from Slack. */
  linked: Schema.Array(Schema.Struct({ conversation: Str, ts: Str, name: Str, url: Str })),
  skipped: Schema.Record({ key: Str, value: Schema.Number })
})
export type SlackImportReport = typeof SlackImportReport.Type

export const ImportFormat = Schema.Literal("mattermost", "slack")

export const ImportJob = Schema.Struct({
  id: Str,
  /** A Slack import reads the export first ("converting": lines_done/lines_total count its conversations). */
  status: Schema.Literal("pending", "converting", "validating", "importing", "succeeded", "failed"),
  format: ImportFormat,
  /** The team a Slack export goes into; "" for Mattermost's format. */
  team: Str,
  report: Schema.NullOr(SlackImportReport),
  dry_run: Schema.Boolean,
  create_at: Schema.Number,
  update_at: Schema.Number,
  lines_total: Schema.Number,
  lines_done: Schema.Number,
  created: Schema.Record({ key: Str, value: Schema.Number }),
  existing: Schema.Record({ key: Str, value: Schema.Number }),
  problems: Schema.Array(Schema.Struct({ line: Schema.Number, message: Str })),
  error: Str
})
export type ImportJob = typeof ImportJob.Type

/** POST /api/v1/admin/import with a JSON body: a file already on the server, inside SERVICE_DATA_DIR/imports. */
export const StartImport = Schema.Struct({
  path: Str,
  dry_run: Schema.optionalWith(Schema.Boolean, { default: () => false }),
  format: Schema.optionalWith(ImportFormat, { default: () => "mattermost" as const }),
  team: Schema.optional(Str)
})
