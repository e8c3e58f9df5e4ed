import type { AnalyticsRow as AnalyticsRowType, SchemaMigration as SchemaMigrationType } from "@mattermost/types/admin"
import type { SystemSetting } from "@mattermost/types/general"
import type { UserAutocomplete as UserAutocompleteType } from "@mattermost/types/autocomplete"
import type { Bot as BotType } from "@mattermost/types/bots"
import type { ChannelCategory as ChannelCategoryType, OrderedChannelCategories as OrderedChannelCategoriesType } from "@mattermost/types/channel_categories"
import type {
  ChannelMembership,
  ChannelStats as ChannelStatsType,
  ChannelUnread as ChannelUnreadType,
  ChannelsWithTotalCount as ChannelsWithTotalCountType,
  ChannelViewResponse as ChannelViewResponseType,
  ChannelWithTeamData as ChannelWithTeamDataType,
  ServerChannel
} from "@mattermost/types/channels"
import type { ClientLicense } from "@mattermost/types/config"
import type { Draft as DraftType } from "@mattermost/types/drafts"
import type { CustomEmoji as CustomEmojiType } from "@mattermost/types/emojis"
import type { ServerError } from "@mattermost/types/errors"
import type {
  FileInfo as FileInfoType,
  FileSearchResults as FileSearchResultsType,
  FileUploadResponse as FileUploadResponseType
} from "@mattermost/types/files"
import type { PostActionResponse as PostActionResponseType } from "@mattermost/types/integration_actions"
import type {
  AutocompleteSuggestion as AutocompleteSuggestionType,
  Command as CommandType,
  CommandResponse as CommandResponseType,
  IncomingWebhook as IncomingWebhookType,
  IncomingWebhooksWithCount as IncomingWebhooksWithCountType,
  OutgoingWebhook as OutgoingWebhookType,
  SubmitDialogResponse as SubmitDialogResponseType
} from "@mattermost/types/integrations"
import type { ServerLimits as ServerLimitsType } from "@mattermost/types/limits"
import type { MfaSecret as MfaSecretType } from "@mattermost/types/mfa"
import type {
  PluginManifest as PluginManifestType,
  PluginsResponse as PluginsResponseType,
  PluginStatus as PluginStatusType
} from "@mattermost/types/plugins"
import type {
  Post as PostType,
  PostAcknowledgement,
  PostList as PostListType,
  PostInfo as PostInfoType,
  PostMetadata as PostMetadataType,
  PostSearchResults as PostSearchResultsType
} from "@mattermost/types/posts"
import type { PreferenceType } from "@mattermost/types/preferences"
import type { Reaction as ReactionType } from "@mattermost/types/reactions"
import type { Role as RoleType } from "@mattermost/types/roles"
import type { ScheduledPost as ScheduledPostType } from "@mattermost/types/schedule_post"
import type { Session as SessionType } from "@mattermost/types/sessions"
import type { UserReport as UserReportType } from "@mattermost/types/reports"
import type {
  Team as TeamType,
  TeamInviteWithError,
  TeamMembership,
  TeamMemberWithError as TeamMemberWithErrorType,
  TeamStats as TeamStatsType,
  TeamUnread as TeamUnreadType
} from "@mattermost/types/teams"
import type { UserThread, UserThreadList } from "@mattermost/types/threads"
import type { UserAccessToken as UserAccessTokenType, UserProfile, UsersStats as UsersStatsType, UserStatus } from "@mattermost/types/users"
import { Either, ParseResult, Schema } from "effect"
import { expect } from "vitest"
import { NewUserAccessToken, UserAccessToken } from "../../schemas/wire/AccessToken.ts"
import { Bot } from "../../schemas/wire/Bot.ts"
import { Channel, ChannelStats, ChannelsWithTotalCount, ChannelTimezones, ChannelWithTeamData } from "../../schemas/wire/Channel.ts"
import { CategoryOrder, ChannelCategory, OrderedChannelCategories } from "../../schemas/wire/ChannelCategory.ts"
import { ChannelMember, ChannelUnread, ChannelUnreadAt, ChannelViewResponse } from "../../schemas/wire/ChannelMember.ts"
import { AutocompleteSuggestion, Command, CommandExtraResponse, CommandResponse, SubmitDialogResponse } from "../../schemas/wire/Command.ts"
import { Config, ConfigEnvironment } from "../../schemas/wire/Config.ts"
import { CountsByChannel } from "../../schemas/wire/Counts.ts"
import { DeviceRegistration } from "../../schemas/wire/Device.ts"
import { Draft, ScheduledPost, ScheduledPostsByTeam } from "../../schemas/wire/Draft.ts"
import { CustomEmoji } from "../../schemas/wire/Emoji.ts"
import { FileInfo, FilePublicLink, FileSearchResults, FileUploadResponse } from "../../schemas/wire/FileInfo.ts"
import { PostActionResponse } from "../../schemas/wire/Integration.ts"
import { EmailInviteResult } from "../../schemas/wire/Invitation.ts"
import { MfaRequired, MfaSecret } from "../../schemas/wire/Mfa.ts"
import { PluginManifest, PluginsResponse, PluginStatus } from "../../schemas/wire/Plugin.ts"
import { Post } from "../../schemas/wire/Post.ts"
import { PostEditVersion, PostInfo } from "../../schemas/wire/PostHistory.ts"
import { PostList, PostSearchResults } from "../../schemas/wire/PostList.ts"
import { PostAcknowledgement as PostAcknowledgementSchema, PostMetadata } from "../../schemas/wire/PostMetadata.ts"
import { Preference } from "../../schemas/wire/Preference.ts"
import { Reaction, ReactionsByPost } from "../../schemas/wire/Reaction.ts"
import { Role } from "../../schemas/wire/Role.ts"
import { ServerLimits } from "../../schemas/wire/ServerLimits.ts"
import { Session } from "../../schemas/wire/Session.ts"
import { SsoCodeExchangeResult } from "../../schemas/wire/Sso.ts"
import { Status } from "../../schemas/wire/Status.ts"
import { AnalyticsRow, OnboardingState, Ping, RedirectLocation, SchemaMigration, StringMap, TimezoneNames } from "../../schemas/wire/System.ts"
import { Team, TeamExists, TeamInviteInfo, TeamStats } from "../../schemas/wire/Team.ts"
import { TeamMember, TeamMemberWithError, TeamUnreadWithThreads } from "../../schemas/wire/TeamMember.ts"
import { Thread, ThreadList } from "../../schemas/wire/Thread.ts"
import { User, UserAutocomplete, UserIds, UserReport, UserReportCount, UsersByGroupChannel, UsersStats } from "../../schemas/wire/User.ts"
import { IncomingWebhook, IncomingWebhooksWithCount, OutgoingWebhook } from "../../schemas/wire/Webhook.ts"

/** The wire Schemas by name: `expectShape(body, Wire.User)`. */
export const Wire = {
  Bot,
  CategoryOrder,
  Channel,
  ChannelCategory,
  ChannelMember,
  ChannelStats,
  ChannelsWithTotalCount,
  ChannelTimezones,
  ChannelViewResponse,
  ChannelWithTeamData,
  FileInfo,
  FileUploadResponse,
  OrderedChannelCategories,
  Post,
  PostList,
  PostMetadata,
  PostSearchResults,
  Preference,
  Reaction,
  ReactionsByPost,
  Role,
  ServerLimits,
  Session,
  Status,
  Team,
  TeamExists,
  TeamMember,
  TeamMemberWithError,
  TeamStats,
  Thread,
  ThreadList,
  User,
  UserAutocomplete,
  UserIds,
  UserReport,
  // Issue 13, the remaining fixed-shape responses (branch wire-b).
  AnalyticsRow,
  ChannelUnread,
  ChannelUnreadAt,
  CountsByChannel,
  DeviceRegistration,
  Draft,
  EmailInviteResult,
  FilePublicLink,
  FileSearchResults,
  IncomingWebhook,
  IncomingWebhooksWithCount,
  MfaRequired,
  MfaSecret,
  OutgoingWebhook,
  Ping,
  PluginManifest,
  PluginsResponse,
  PluginStatus,
  PostActionResponse,
  PostEditVersion,
  PostInfo,
  RedirectLocation,
  ScheduledPost,
  ScheduledPostsByTeam,
  SsoCodeExchangeResult,
  StringMap,
  TeamInviteInfo,
  TeamUnreadWithThreads,
  TimezoneNames,
  UserReportCount,
  UsersByGroupChannel,
  UsersStats,
  // Issue 13, the System Console's config document (branch wire-config).
  Config,
  ConfigEnvironment,
  // Issue 26, the System Console's About and first-run setup.
  OnboardingState,
  SchemaMigration
}

/**
 * Response shapes are checked by decoding them with the wire Schemas the handlers encode with (schemas/wire/): every
 * field present with its type, and no field the Schema does not declare (`onExcessProperty: "error"`), nested
 * objects included.
 */
export const expectShape = <A, I>(value: unknown, schema: Schema.Schema<A, I, never>, what = "value"): A => {
  const decoded = Schema.decodeUnknownEither(schema, { onExcessProperty: "error" })(value)
  if (Either.isLeft(decoded)) return expect.fail(`${what} does not match its wire schema:\n${ParseResult.TreeFormatter.formatErrorSync(decoded.left)}`)
  return decoded.right
}

/**
 * The wire Schemas against @mattermost/types, checked by the compiler: every key of the official type is declared
 * by the Schema (required where the type requires it) or named as deliberately not sent, so the build fails when the
 * types package gains a field nobody decided about.
 */
type RequiredKeys<T> = { [K in keyof T]-?: {} extends Pick<T, K> ? never : K }[keyof T]
type Conforms<T, S, NotSent extends keyof T = never> = [
  Exclude<keyof T, keyof S | NotSent> | Exclude<RequiredKeys<T>, RequiredKeys<S> | NotSent>
] extends [never] ? true : { readonly undecided: Exclude<keyof T, keyof S | NotSent> | Exclude<RequiredKeys<T>, RequiredKeys<S> | NotSent> }
const conforms = <_ extends true>() => undefined

// Not sent: the password hash, activity (only in lists sorted by it), shared-channel and attribute fields.
conforms<Conforms<UserProfile, User, "password" | "last_activity_at" | "remote_id" | "status" | "custom_profile_attributes">>()
conforms<Conforms<TeamType, Team, "policy_enforced" | "policy_actions" | "policy_is_active">>()
// The thread counts are /users/{id}/teams/unread's (collapsed threads), not the membership's.
conforms<Conforms<TeamMembership, TeamMember, "thread_count" | "thread_mention_count" | "thread_urgent_mention_count">>()
/** The Channel fields of features not implemented here, which the wire Schemas leave out. */
type ChannelNotSent =
  | "teammate_id" | "status" | "banner_info" | "policy_enforced" | "policy_actions" | "policy_is_active" | "default_category_name"
  | "managed_category_name" | "autotranslation" | "discoverable"
conforms<Conforms<ServerChannel, Channel, ChannelNotSent>>()
conforms<Conforms<ChannelMembership, ChannelMember, "post_root_id" | "autotranslation_disabled">>()
// Client-side states (failed, state, ...) and fields of features not implemented (shared channels, message sources).
conforms<Conforms<
  PostType,
  Post,
  "failed" | "user_activity_posts" | "state" | "filenames" | "message_source" | "exists" | "remote_id"
>>()
conforms<Conforms<PostMetadataType, PostMetadata, "translations" | "expire_at" | "recipients" | "redacted_file_count">>()
conforms<Conforms<PostAcknowledgement, typeof PostAcknowledgementSchema.Type>>()
conforms<Conforms<PostListType, PostList>>()
conforms<Conforms<FileInfoType, FileInfo, "clientId" | "link">>()
conforms<Conforms<ReactionType, Reaction>>()
conforms<Conforms<UserThread, Thread, "type">>()
conforms<Conforms<UserThreadList, ThreadList>>()
conforms<Conforms<PreferenceType, Preference>>()
conforms<Conforms<SessionType, Session>>()
conforms<Conforms<UserStatus, Status, "active_channel">>()
conforms<Conforms<FileUploadResponseType, FileUploadResponse>>()
conforms<Conforms<PostSearchResultsType, PostSearchResults>>()
conforms<Conforms<BotType, Bot>>()
conforms<Conforms<RoleType, Role>>()
// No post history or single-channel guest limits here.
conforms<Conforms<
  ServerLimitsType,
  ServerLimits,
  "lastAccessiblePostTime" | "postHistoryLimit" | "singleChannelGuestCount" | "singleChannelGuestLimit"
>>()
conforms<Conforms<ChannelCategoryType, ChannelCategory>>()
conforms<Conforms<OrderedChannelCategoriesType, OrderedChannelCategories>>()
conforms<Conforms<UserAutocompleteType, UserAutocomplete>>()
// Not sent: the fields User's conformance leaves out, and the report's last status and channel count.
conforms<Conforms<
  UserReportType,
  UserReport,
  "password" | "last_activity_at" | "remote_id" | "status" | "custom_profile_attributes" | "last_status_at" | "channel_count"
>>()
conforms<Conforms<TeamStatsType, TeamStats>>()
// Each entry has the membership or the error, the other key left out; the error is Mattermost's AppError body
// (`id`, `message`, `status_code`), of which ServerError declares only the message as required.
conforms<Conforms<TeamMemberWithErrorType, TeamMemberWithError, "member" | "error">>()
conforms<Conforms<ServerError, NonNullable<TeamMemberWithError["error"]>, "type" | "server_error_id" | "stack" | "detailed_error" | "url">>()
conforms<Conforms<ChannelWithTeamDataType, ChannelWithTeamData, ChannelNotSent>>()
conforms<Conforms<ChannelsWithTotalCountType, ChannelsWithTotalCount>>()
conforms<Conforms<ChannelStatsType, ChannelStats>>()
conforms<Conforms<ChannelViewResponseType, ChannelViewResponse>>()
conforms<Conforms<CustomEmojiType, CustomEmoji>>()
conforms<Conforms<CommandType, Command>>()
// Not sent: `type`, which Mattermost's AutocompleteSuggestion model does not have.
conforms<Conforms<AutocompleteSuggestionType, AutocompleteSuggestion, "type">>()
conforms<Conforms<CommandResponseType, CommandResponse>>()
// An extra response is a whole response without extras of its own.
conforms<Conforms<CommandResponseType, CommandExtraResponse, "extra_responses">>()
conforms<Conforms<SubmitDialogResponseType, SubmitDialogResponse>>()
// Listed and fetched tokens never carry the secret; only the created one does.
conforms<Conforms<UserAccessTokenType, UserAccessToken, "token">>()
conforms<Conforms<UserAccessTokenType, NewUserAccessToken>>()
// Issue 13, the remaining fixed-shape responses (branch wire-b).
conforms<Conforms<AnalyticsRowType, AnalyticsRow>>()
conforms<Conforms<ClientLicense, StringMap>>()
// deltaMsgs is computed by the client.
conforms<Conforms<ChannelUnreadType, ChannelUnread, "deltaMsgs">>()
conforms<Conforms<TeamUnreadType, TeamUnreadWithThreads>>()
conforms<Conforms<UsersStatsType, UsersStats>>()
// A draft's or scheduled post's type is left out: they are always plain messages here.
conforms<Conforms<DraftType, Draft, "type">>()
conforms<Conforms<ScheduledPostType, ScheduledPost, "type">>()
conforms<Conforms<PostInfoType, PostInfo>>()
conforms<Conforms<MfaSecretType, MfaSecret>>()
conforms<Conforms<IncomingWebhookType, IncomingWebhook>>()
conforms<Conforms<IncomingWebhooksWithCountType, IncomingWebhooksWithCount>>()
conforms<Conforms<OutgoingWebhookType, OutgoingWebhook>>()
conforms<Conforms<PostActionResponseType, PostActionResponse>>()
conforms<Conforms<TeamInviteWithError, EmailInviteResult>>()
conforms<Conforms<FileSearchResultsType, FileSearchResults>>()
// The built-in Calls manifest has no links, icon, server part or settings.
conforms<Conforms<
  PluginManifestType,
  PluginManifest,
  "homepage_url" | "support_url" | "release_notes_url" | "icon_path" | "translate" | "server" | "backend" | "settings_schema" | "props"
>>()
conforms<Conforms<PluginsResponseType, PluginsResponse>>()
conforms<Conforms<PluginStatusType, PluginStatus>>()
conforms<Conforms<SystemSetting, OnboardingState>>()
conforms<Conforms<SchemaMigrationType, SchemaMigration>>()

/** Every value of a client config or license map is a string (mattermost-compat.md section 1, rule 8). */
export const expectStringMap = (value: unknown) => {
  expect(value).toBeTypeOf("object")
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) expect(typeof v, key).toBe("string")
}
