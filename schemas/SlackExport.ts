import { Schema } from "effect"

/**
 * A Slack workspace export (Settings → Import/Export Data → Export): a zip with users.json, channels.json (public),
 * groups.json (private), dms.json, mpims.json and one folder per conversation holding a file per day
 * (`general/2024-01-31.json`) with that day's messages. Only the fields the import reads are declared; the decoder
 * ignores the many others, and fields Slack leaves out or sets to null are optional.
 */
const Str = Schema.String
const opt = <S extends Schema.Schema.Any>(s: S) => Schema.optional(Schema.NullOr(s))

/** A Slack timestamp: seconds and microseconds as a string ("1700000000.123456"), unique within a conversation. */
export const Ts = Str.pipe(Schema.pattern(/^\d{1,12}(\.\d{1,9})?$/, { message: () => "a Slack timestamp (\"seconds.micros\")" }))

export const Profile = Schema.Struct({
  email: opt(Str),
  first_name: opt(Str),
  last_name: opt(Str),
  real_name: opt(Str),
  display_name: opt(Str),
  title: opt(Str),
  bot_id: opt(Str)
})

export const User = Schema.Struct({
  id: Str,
  name: Str,
  real_name: opt(Str),
  deleted: opt(Schema.Boolean),
  is_bot: opt(Schema.Boolean),
  is_app_user: opt(Schema.Boolean),
  is_admin: opt(Schema.Boolean),
  is_owner: opt(Schema.Boolean),
  is_primary_owner: opt(Schema.Boolean),
  profile: Schema.optionalWith(Profile, { default: () => ({}) })
})
export type User = typeof User.Type

const Text = Schema.Struct({ value: opt(Str) })

/** channels.json, groups.json and mpims.json share this shape. */
export const Channel = Schema.Struct({
  id: Str,
  name: Str,
  created: opt(Schema.Number),
  creator: opt(Str),
  is_archived: opt(Schema.Boolean),
  is_general: opt(Schema.Boolean),
  members: opt(Schema.Array(Str)),
  topic: opt(Text),
  purpose: opt(Text)
})
export type Channel = typeof Channel.Type

export const Direct = Schema.Struct({ id: Str, created: opt(Schema.Number), members: Schema.Array(Str) })
export type Direct = typeof Direct.Type

export const Reaction = Schema.Struct({ name: Str, users: Schema.Array(Str), count: opt(Schema.Number) })

/** A legacy message attachment, nearly the same as Mattermost's (props.attachments). */
export const Attachment = Schema.Struct({
  fallback: opt(Str),
  color: opt(Str),
  pretext: opt(Str),
  author_name: opt(Str),
  author_link: opt(Str),
  author_icon: opt(Str),
  title: opt(Str),
  title_link: opt(Str),
  text: opt(Str),
  fields: opt(Schema.Array(Schema.Struct({ title: opt(Str), value: opt(Str), short: opt(Schema.Boolean) }))),
  image_url: opt(Str),
  thumb_url: opt(Str),
  footer: opt(Str),
  footer_icon: opt(Str)
})
export type Attachment = typeof Attachment.Type

/**
 * A shared file. Its bytes are in the export only when the export tool fetched them (`__uploads/<id>/<name>`);
 * otherwise only `url_private` links to Slack. `mode` "tombstone" or "hidden_by_limit" is a file Slack no longer has.
 */
export const File = Schema.Struct({
  id: opt(Str),
  name: opt(Str),
  title: opt(Str),
  mode: opt(Str),
  size: opt(Schema.Number),
  url_private: opt(Str),
  permalink: opt(Str)
})
export type File = typeof File.Type

export const Message = Schema.Struct({
  type: opt(Str),
  subtype: opt(Str),
  user: opt(Str),
  bot_id: opt(Str),
  username: opt(Str),
  text: opt(Str),
  ts: Ts,
  thread_ts: opt(Ts),
  edited: opt(Schema.Struct({ user: opt(Str), ts: Ts })),
  reactions: opt(Schema.Array(Reaction)),
  attachments: opt(Schema.Array(Attachment)),
  files: opt(Schema.Array(File)),
  topic: opt(Str),
  purpose: opt(Str)
})
export type Message = typeof Message.Type

export const Users = Schema.Array(User)
export const Channels = Schema.Array(Channel)
export const Directs = Schema.Array(Direct)
export const Day = Schema.Array(Message)
