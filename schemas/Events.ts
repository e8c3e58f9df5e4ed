import { Data, Option, Record, Schema } from "effect"

/**
 * The domain events features publish on the cluster event bus (src/events/EventBus.ts), one tagged union: each
 * event's payload is typed, so the compiler rejects an unknown event or a wrong payload at the publisher, and
 * consumers (push, notification mails, outgoing webhooks) match on `_tag` and read typed values (the post object
 * itself, not its JSON).
 *
 * `toWire` is the one place an event becomes Mattermost's WebSocket event: its name (EventNames, one table) and its
 * `data`, field for field and in the order Mattermost clients receive them (mattermost-compat.md section 9; JSON
 * strings where Mattermost sends strings). The bus calls it once per publish; the frames and the cross-node
 * envelope are built from that one result. It is plain code, not a Schema: a Schema encode (or decode) per local
 * publish would cost the POST /posts hot path (issue 10) what the bus already saved by not decoding its own events.
 */

/** A post as the API answers it (posts/PostWire.ts `toWire`), with the fields consumers read typed. */
export interface EventPost {
  readonly id: string
  readonly create_at: number
  readonly user_id: string
  readonly channel_id: string
  readonly root_id: string
  readonly message: string
  readonly type: string
  readonly props: Readonly<Record<string, unknown>>
  readonly file_ids?: ReadonlyArray<string>
  readonly [field: string]: unknown
}

/** The post object posts/PostWire.ts `toWire` built, which sets every field EventPost names. */
export const eventPost = (post: Readonly<Record<string, unknown>>): EventPost => post as EventPost

/**
 * An object sent as the REST API answers it (a team, a channel, a member, a reaction, a draft, preferences...):
 * the event carries it as built, and its JSON text is what goes on the wire.
 */
export type WireObject = object

/** The channel a post was made in, as `posted` describes it. */
export interface PostedChannel {
  readonly id: string
  readonly team_id: string
  readonly type: string
  readonly name: string
  readonly display_name: string
}

/** Mattermost's Calls plugin id: its events are named `custom_<plugin id>_<event>`. */
const CALLS = "custom_com.mattermost.calls"

export type DomainEvent = Data.TaggedEnum<{
  // posts
  Posted: {
    readonly post: EventPost
    readonly channel: PostedChannel
    readonly senderName: string
    readonly setOnline: boolean
    /** Users the post mentions (posts/Mentions.ts), sent only when there are any. */
    readonly mentions: ReadonlyArray<string>
  }
  PostEdited: { readonly post: Readonly<Record<string, unknown>> }
  PostDeleted: { readonly post: Readonly<Record<string, unknown>>; readonly deletedBy: string | undefined }
  EphemeralMessage: { readonly post: WireObject }
  PostUnread: {
    readonly unread: {
      readonly team_id: string
      readonly channel_id: string
      readonly msg_count: number
      readonly mention_count: number
      readonly msg_count_root: number
      readonly mention_count_root: number
      readonly urgent_mention_count: number
      readonly last_viewed_at: number
      readonly post_id: string
    }
  }
  AcknowledgementAdded: { readonly acknowledgement: WireObject }
  AcknowledgementRemoved: { readonly acknowledgement: WireObject }
  ReactionAdded: { readonly reaction: WireObject }
  ReactionRemoved: { readonly reaction: WireObject }
  EmojiAdded: { readonly emoji: WireObject }
  RoleUpdated: { readonly role: WireObject }
  // threads
  ThreadUpdated: { readonly thread: WireObject; readonly previousUnreadReplies: number; readonly previousUnreadMentions: number }
  ThreadRead: {
    readonly threadId: string
    readonly timestamp: number
    readonly unreadMentions: number
    readonly unreadReplies: number
    readonly previousUnreadMentions: number
    readonly previousUnreadReplies: number
    readonly channelId: string
  }
  ThreadsAllRead: { readonly timestamp: number }
  ThreadFollowChanged: { readonly threadId: string; readonly following: boolean; readonly replyCount: number }
  // channels
  ChannelCreated: { readonly channelId: string; readonly teamId: string }
  ChannelUpdated: { readonly channel: WireObject }
  ChannelDeleted: { readonly channelId: string; readonly deleteAt: number }
  ChannelRestored: { readonly channelId: string }
  ChannelConverted: { readonly channelId: string; readonly channelType: string }
  ChannelMemberUpdated: { readonly member: WireObject }
  ChannelViewed: { readonly channelId: string }
  MultipleChannelsViewed: { readonly channelTimes: Readonly<Record<string, number>> }
  DirectAdded: { readonly creatorId: string; readonly teammateId: string }
  GroupAdded: { readonly teammateIds: ReadonlyArray<string> }
  UserAdded: { readonly userId: string; readonly teamId: string }
  /** The channel's copy of a removal: who left, and who removed them. */
  UserRemoved: { readonly userId: string; readonly removerId: string }
  /** The removed user's own copy: which channel. */
  RemovedFromChannel: { readonly channelId: string; readonly removerId: string }
  // sidebar categories
  CategoriesUpdated: { readonly categories: WireObject }
  CategoryOrderUpdated: { readonly order: ReadonlyArray<string>; readonly teamId: string }
  CategoryCreated: { readonly categoryId: string }
  CategoryDeleted: { readonly categoryId: string }
  // teams
  AddedToTeam: { readonly teamId: string; readonly userId: string }
  LeaveTeam: { readonly userId: string; readonly teamId: string }
  TeamUpdated: { readonly team: WireObject }
  TeamDeleted: { readonly team: WireObject }
  TeamRestored: { readonly team: WireObject }
  TeamMemberRoleUpdated: { readonly member: WireObject }
  // users
  NewUser: { readonly userId: string }
  UserUpdated: { readonly user: WireObject }
  /** New system roles, to the user's own sockets (Mattermost's UpdateUserRoles): roles space-separated. */
  UserRoleUpdated: { readonly userId: string; readonly roles: string }
  StatusChange: { readonly status: string; readonly userId: string }
  Typing: { readonly parentId: string; readonly userId: string }
  PreferencesChanged: { readonly preferences: WireObject }
  PreferencesDeleted: { readonly preferences: WireObject }
  PreferenceChanged: { readonly preference: WireObject }
  DraftCreated: { readonly draft: WireObject }
  DraftUpdated: { readonly draft: WireObject }
  DraftDeleted: { readonly draft: WireObject }
  /** An interactive dialog to open, already as the JSON text Mattermost sends. */
  OpenDialog: { readonly dialog: string }
  // calls (the plugin's events)
  CallStarted: {
    readonly id: string
    readonly channelId: string
    readonly startAt: number
    readonly threadId: string
    readonly postId: string
    readonly ownerId: string
  }
  CallEnded: { readonly channelId: string; readonly callId: string }
  CallDismissed: { readonly userId: string; readonly callId: string }
  CallsEnabled: {}
  CallsDisabled: {}
  /**
   * Internal: sessions that ended (logout, password change, revocation, deactivation, expiry), published by
   * src/auth/Sessions.ts once their rows are gone; every node's hub closes their sockets and forgets their replay
   * state (src/realtime/Dispatch.ts). Never written to a socket.
   */
  SessionEnded: { readonly sessionIds: ReadonlyArray<string> }
}>

export type EventTag = DomainEvent["_tag"]
export type EventOf<T extends EventTag> = Extract<DomainEvent, { readonly _tag: T }>

/** The one table of Mattermost event names. */
export const EventNames = {
  Posted: "posted",
  PostEdited: "post_edited",
  PostDeleted: "post_deleted",
  EphemeralMessage: "ephemeral_message",
  PostUnread: "post_unread",
  AcknowledgementAdded: "post_acknowledgement_added",
  AcknowledgementRemoved: "post_acknowledgement_removed",
  ReactionAdded: "reaction_added",
  ReactionRemoved: "reaction_removed",
  EmojiAdded: "emoji_added",
  RoleUpdated: "role_updated",
  ThreadUpdated: "thread_updated",
  ThreadRead: "thread_read_changed",
  ThreadsAllRead: "thread_read_changed",
  ThreadFollowChanged: "thread_follow_changed",
  ChannelCreated: "channel_created",
  ChannelUpdated: "channel_updated",
  ChannelDeleted: "channel_deleted",
  ChannelRestored: "channel_restored",
  ChannelConverted: "channel_converted",
  ChannelMemberUpdated: "channel_member_updated",
  ChannelViewed: "channel_viewed",
  MultipleChannelsViewed: "multiple_channels_viewed",
  DirectAdded: "direct_added",
  GroupAdded: "group_added",
  UserAdded: "user_added",
  UserRemoved: "user_removed",
  RemovedFromChannel: "user_removed",
  CategoriesUpdated: "sidebar_category_updated",
  CategoryOrderUpdated: "sidebar_category_order_updated",
  CategoryCreated: "sidebar_category_created",
  CategoryDeleted: "sidebar_category_deleted",
  AddedToTeam: "added_to_team",
  LeaveTeam: "leave_team",
  TeamUpdated: "update_team",
  TeamDeleted: "delete_team",
  TeamRestored: "restore_team",
  TeamMemberRoleUpdated: "memberrole_updated",
  NewUser: "new_user",
  UserUpdated: "user_updated",
  UserRoleUpdated: "user_role_updated",
  StatusChange: "status_change",
  Typing: "typing",
  PreferencesChanged: "preferences_changed",
  PreferencesDeleted: "preferences_deleted",
  PreferenceChanged: "preference_changed",
  DraftCreated: "draft_created",
  DraftUpdated: "draft_updated",
  DraftDeleted: "draft_deleted",
  OpenDialog: "open_dialog",
  CallStarted: `${CALLS}_call_start`,
  CallEnded: `${CALLS}_call_end`,
  CallDismissed: `${CALLS}_user_dismissed_notification`,
  CallsEnabled: `${CALLS}_channel_enable_voice`,
  CallsDisabled: `${CALLS}_channel_disable_voice`,
  SessionEnded: "service_session_ended"
} as const satisfies { readonly [T in EventTag]: string }

/**
 * The constructors (`DomainEvent.Posted({ ... })`), with `$is` and `$match`. Built once per tag: `Data.taggedEnum()`
 * alone answers every property read through a Proxy that makes a new constructor each time, which doubled the cost
 * of building an event on the hot path of POST /posts.
 */
export const DomainEvent: Data.TaggedEnum.Constructor<DomainEvent> = (() => {
  const viaProxy = Data.taggedEnum<DomainEvent>()
  const constructors: Record<string, unknown> = { $is: viaProxy.$is, $match: viaProxy.$match }
  for (const tag of Object.keys(EventNames)) constructors[tag] = Data.tagged(tag)
  return constructors as unknown as Data.TaggedEnum.Constructor<DomainEvent>
})()

/** Every Mattermost name a domain event goes out under. */
export type EventName = (typeof EventNames)[EventTag]

type WireData = Record<string, unknown>

/** Each event's Mattermost `data`, keys in the order clients have always received them (frames are compared byte for byte). */
const data: { readonly [T in EventTag]: (event: EventOf<T>) => WireData } = {
  Posted: (e) => ({
    channel_display_name: e.channel.display_name,
    channel_name: e.channel.name,
    channel_type: e.channel.type,
    post: JSON.stringify(e.post),
    sender_name: `@${e.senderName}`,
    team_id: e.channel.team_id,
    set_online: e.setOnline,
    ...(e.mentions.length > 0 ? { mentions: JSON.stringify(e.mentions) } : {})
  }),
  PostEdited: (e) => ({ post: JSON.stringify(e.post) }),
  PostDeleted: (e) => ({ post: JSON.stringify(e.post), ...(e.deletedBy !== undefined ? { delete_by: e.deletedBy } : {}) }),
  EphemeralMessage: (e) => ({ post: JSON.stringify(e.post) }),
  PostUnread: (e) => e.unread,
  AcknowledgementAdded: (e) => ({ acknowledgement: JSON.stringify(e.acknowledgement) }),
  AcknowledgementRemoved: (e) => ({ acknowledgement: JSON.stringify(e.acknowledgement) }),
  ReactionAdded: (e) => ({ reaction: JSON.stringify(e.reaction) }),
  ReactionRemoved: (e) => ({ reaction: JSON.stringify(e.reaction) }),
  EmojiAdded: (e) => ({ emoji: JSON.stringify(e.emoji) }),
  RoleUpdated: (e) => ({ role: JSON.stringify(e.role) }),
  ThreadUpdated: (e) => ({
    thread: JSON.stringify(e.thread),
    previous_unread_replies: e.previousUnreadReplies,
    previous_unread_mentions: e.previousUnreadMentions
  }),
  ThreadRead: (e) => ({
    thread_id: e.threadId,
    timestamp: e.timestamp,
    unread_mentions: e.unreadMentions,
    unread_replies: e.unreadReplies,
    previous_unread_mentions: e.previousUnreadMentions,
    previous_unread_replies: e.previousUnreadReplies,
    channel_id: e.channelId
  }),
  ThreadsAllRead: (e) => ({ timestamp: e.timestamp }),
  ThreadFollowChanged: (e) => ({ thread_id: e.threadId, state: e.following, reply_count: e.replyCount }),
  ChannelCreated: (e) => ({ channel_id: e.channelId, team_id: e.teamId }),
  ChannelUpdated: (e) => ({ channel: JSON.stringify(e.channel) }),
  ChannelDeleted: (e) => ({ channel_id: e.channelId, delete_at: e.deleteAt }),
  ChannelRestored: (e) => ({ channel_id: e.channelId }),
  ChannelConverted: (e) => ({ channel_id: e.channelId, channel_type: e.channelType }),
  ChannelMemberUpdated: (e) => ({ channelMember: JSON.stringify(e.member) }),
  ChannelViewed: (e) => ({ channel_id: e.channelId }),
  MultipleChannelsViewed: (e) => ({ channel_times: e.channelTimes }),
  DirectAdded: (e) => ({ creator_id: e.creatorId, teammate_id: e.teammateId }),
  GroupAdded: (e) => ({ teammate_ids: JSON.stringify(e.teammateIds) }),
  UserAdded: (e) => ({ user_id: e.userId, team_id: e.teamId }),
  UserRemoved: (e) => ({ user_id: e.userId, remover_id: e.removerId }),
  RemovedFromChannel: (e) => ({ channel_id: e.channelId, remover_id: e.removerId }),
  CategoriesUpdated: (e) => ({ updatedCategories: JSON.stringify(e.categories) }),
  CategoryOrderUpdated: (e) => ({ order: e.order, team_id: e.teamId }),
  CategoryCreated: (e) => ({ category_id: e.categoryId }),
  CategoryDeleted: (e) => ({ category_id: e.categoryId }),
  AddedToTeam: (e) => ({ team_id: e.teamId, user_id: e.userId }),
  LeaveTeam: (e) => ({ user_id: e.userId, team_id: e.teamId }),
  TeamUpdated: (e) => ({ team: JSON.stringify(e.team) }),
  TeamDeleted: (e) => ({ team: JSON.stringify(e.team) }),
  TeamRestored: (e) => ({ team: JSON.stringify(e.team) }),
  TeamMemberRoleUpdated: (e) => ({ member: JSON.stringify(e.member) }),
  NewUser: (e) => ({ user_id: e.userId }),
  // Mattermost sends the user as an object here, not as JSON text.
  UserUpdated: (e) => ({ user: e.user }),
  UserRoleUpdated: (e) => ({ user_id: e.userId, roles: e.roles }),
  StatusChange: (e) => ({ status: e.status, user_id: e.userId }),
  Typing: (e) => ({ parent_id: e.parentId, user_id: e.userId }),
  PreferencesChanged: (e) => ({ preferences: JSON.stringify(e.preferences) }),
  PreferencesDeleted: (e) => ({ preferences: JSON.stringify(e.preferences) }),
  PreferenceChanged: (e) => ({ preference: JSON.stringify(e.preference) }),
  DraftCreated: (e) => ({ draft: JSON.stringify(e.draft) }),
  DraftUpdated: (e) => ({ draft: JSON.stringify(e.draft) }),
  DraftDeleted: (e) => ({ draft: JSON.stringify(e.draft) }),
  OpenDialog: (e) => ({ dialog: e.dialog }),
  CallStarted: (e) => ({
    id: e.id,
    channelID: e.channelId,
    start_at: e.startAt,
    thread_id: e.threadId,
    post_id: e.postId,
    owner_id: e.ownerId,
    host_id: e.ownerId
  }),
  CallEnded: (e) => ({ channelID: e.channelId, callID: e.callId }),
  CallDismissed: (e) => ({ userID: e.userId, callID: e.callId }),
  CallsEnabled: () => ({}),
  CallsDisabled: () => ({}),
  SessionEnded: (e) => ({ session_ids: e.sessionIds })
}

/** The event as Mattermost's WebSocket event: its name and `data`. Called once per publish (by the bus). */
export const toWire = (event: DomainEvent): { readonly event: EventName; readonly data: WireData } => ({
  event: EventNames[event._tag],
  data: (data[event._tag] as (e: DomainEvent) => WireData)(event)
})

// ---------------------------------------------------------------------------------------------------------------
// Back from the wire. Another node's events arrive as their wire form only (the cross-node envelope carries no typed
// event), yet every node's hub acts on some of them: it keeps its subscriptions in step with memberships and closes
// the sockets of ended sessions. `tagOf` gives any wire event its tag (a lookup, cheap enough for every event);
// `fromWire` gives back the typed event for the few events whose payload a hub reads, decoded with a Schema (they
// are rare: no post, typing or status event is ever decoded).

type Payload<T extends EventTag> = Omit<EventOf<T>, "_tag">

/** The tag of each Mattermost name (a name two events share is told apart by `sharedNames` first). */
const tagByName = new Map<string, EventTag>()
for (const [tag, name] of Object.entries(EventNames)) tagByName.set(name, tag as EventTag)

/** Names two events share, told apart by their data (the field only one of them sends). */
const sharedNames: Readonly<Record<string, (data: WireData) => EventTag>> = {
  [EventNames.UserRemoved]: (data) => "channel_id" in data ? "RemovedFromChannel" : "UserRemoved",
  [EventNames.ThreadRead]: (data) => "thread_id" in data ? "ThreadRead" : "ThreadsAllRead"
}

/** The tag of an event in its wire form; undefined for a name outside the union (custom events, tests' probes). */
export const tagOf = (event: string, data: WireData): EventTag | undefined => {
  const shared = sharedNames[event]
  return shared !== undefined ? shared(data) : tagByName.get(event)
}

/** A wire `data` Schema that decodes into the event's typed payload (`toWire`'s `data` read backwards). */
const wire = <T extends EventTag, I>(tag: T, payload: Schema.Schema<Payload<T>, I>) => {
  const decode = Schema.decodeUnknownOption(payload)
  // The constructor features publish with, so an event from the wire is the same kind of value as a local one.
  const make = (DomainEvent as unknown as Record<T, (payload: Payload<T>) => EventOf<T>>)[tag]
  return (data: WireData): EventOf<T> | undefined => Option.getOrUndefined(Option.map(decode(data), make))
}

/** A wire `data` Schema whose fields (all of Schema `S`) are renamed by `M` (wire name -> payload field). */
type Renamed<M, S extends Schema.Schema.AnyNoContext> = Schema.Schema<
  { readonly [K in keyof M as M[K] & PropertyKey]: Schema.Schema.Type<S> },
  { readonly [K in keyof M]: Schema.Schema.Encoded<S> }
>

/**
 * The wire `data` Schema of a rename map (wire name -> payload field): a struct of strings, or of `field`, read under
 * the payload's names. The signatures carry the types; the body is typed loosely because `Schema.rename` cannot check
 * a map that is still generic.
 */
function renamed<const M extends Readonly<Record<string, string>>>(renames: M): Renamed<M, typeof Schema.String>
function renamed<const M extends Readonly<Record<string, string>>, S extends Schema.Schema.AnyNoContext>(
  renames: M,
  field: S
): Renamed<M, S>
function renamed(renames: Readonly<Record<string, string>>, field: Schema.Schema.AnyNoContext = Schema.String) {
  return Schema.Struct(Record.map(renames, () => field)).pipe(Schema.rename(renames))
}

/** The events `fromWire` decodes: those whose payload every node's hub reads (src/realtime/Membership.ts, Dispatch.ts). */
const fromWireData: { readonly [T in EventTag]?: (data: WireData) => EventOf<T> | undefined } = {
  UserAdded: wire("UserAdded", renamed({ user_id: "userId", team_id: "teamId" })),
  UserRemoved: wire("UserRemoved", renamed({ user_id: "userId", remover_id: "removerId" })),
  RemovedFromChannel: wire("RemovedFromChannel", renamed({ channel_id: "channelId", remover_id: "removerId" })),
  DirectAdded: wire("DirectAdded", renamed({ creator_id: "creatorId", teammate_id: "teammateId" })),
  GroupAdded: wire("GroupAdded", renamed({ teammate_ids: "teammateIds" }, Schema.parseJson(Schema.Array(Schema.String)))),
  ChannelCreated: wire("ChannelCreated", renamed({ channel_id: "channelId", team_id: "teamId" })),
  AddedToTeam: wire("AddedToTeam", renamed({ team_id: "teamId", user_id: "userId" })),
  LeaveTeam: wire("LeaveTeam", renamed({ user_id: "userId", team_id: "teamId" })),
  SessionEnded: wire("SessionEnded", renamed({ session_ids: "sessionIds" }, Schema.Array(Schema.String)))
}

/** The tags `fromWire` gives the typed event of. */
export const decodedFromWire: ReadonlyArray<EventTag> = Object.keys(fromWireData) as Array<EventTag>

/**
 * The typed event back from its wire form, for the events whose payload every node reads (`decodedFromWire`);
 * undefined for the others, and for data that does not match (from a node that does not send what this one does).
 */
export const fromWire = (tag: EventTag, data: WireData): DomainEvent | undefined => fromWireData[tag]?.(data)
