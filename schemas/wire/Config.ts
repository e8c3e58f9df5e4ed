import { Schema } from "effect"

/**
 * `GET /config` and the answer of `PUT /config`, `PUT /config/patch` (src/system/ConfigRoutes.ts): the System
 * Console's configuration document, Mattermost's AdminConfig in part, as src/system/ConfigDocument.ts builds it.
 * Every key the document has is declared, in its order (respondWith sends only declared keys, in declaration
 * order); the few maps of arbitrary keys (advanced logging targets, plugin settings and states) are Records.
 */
const Strings = Schema.Array(Schema.String)

/** One replica's lag settings (empty here: no replicas). */
const ReplicaLagSetting = Schema.Struct({ DataSource: Schema.String, QueryAbsoluteLag: Schema.String, QueryTimeLag: Schema.String })

/** Mattermost's advanced logging targets, free-form JSON (empty here). */
const AdvancedLoggingJSON = Schema.Record({ key: Schema.String, value: Schema.Unknown })

const ServiceSettings = Schema.Struct({
  SiteURL: Schema.String,
  ListenAddress: Schema.String,
  ConnectionSecurity: Schema.String,
  TrustedProxyIPHeader: Strings,
  EnableInsecureOutgoingConnections: Schema.Boolean,
  EnableOAuthServiceProvider: Schema.Boolean,
  EnableIncomingWebhooks: Schema.Boolean,
  EnableOutgoingWebhooks: Schema.Boolean,
  EnableOutgoingOAuthConnections: Schema.Boolean,
  EnableCommands: Schema.Boolean,
  EnablePostUsernameOverride: Schema.Boolean,
  EnablePostIconOverride: Schema.Boolean,
  PostPriority: Schema.Boolean,
  EnableLinkPreviews: Schema.Boolean,
  EnablePermalinkPreviews: Schema.Boolean,
  EnableTesting: Schema.Boolean,
  EnableDeveloper: Schema.Boolean,
  EnableClientPerformanceDebugging: Schema.Boolean,
  EnableSecurityFixAlert: Schema.Boolean,
  EnableInsecureOutgoingConnection: Schema.Boolean,
  AllowCorsFrom: Schema.String,
  CorsAllowCredentials: Schema.Boolean,
  EnableMultifactorAuthentication: Schema.Boolean,
  EnforceMultifactorAuthentication: Schema.Boolean,
  SessionLengthWebInHours: Schema.Number,
  SessionLengthMobileInHours: Schema.Number,
  SessionLengthSSOInHours: Schema.Number,
  ExtendSessionLengthWithActivity: Schema.Boolean,
  SessionIdleTimeoutInMinutes: Schema.Number,
  SessionCacheInMinutes: Schema.Number,
  WebsocketURL: Schema.String,
  EnableCustomEmoji: Schema.Boolean,
  EnableEmojiPicker: Schema.Boolean,
  EnableGifPicker: Schema.Boolean,
  GiphySdkKey: Schema.String,
  EnableUserAccessTokens: Schema.Boolean,
  EnableBotAccountCreation: Schema.Boolean,
  EnableUserTypingMessages: Schema.Boolean,
  EnableChannelViewedMessages: Schema.Boolean,
  EnableUserStatuses: Schema.Boolean,
  EnablePreviewFeatures: Schema.Boolean,
  EnableTutorial: Schema.Boolean,
  EnableOnboardingFlow: Schema.Boolean,
  ExperimentalEnableDefaultChannelLeaveJoinMessages: Schema.Boolean,
  ExperimentalGroupUnreadChannels: Schema.String,
  EnableAPITeamDeletion: Schema.Boolean,
  EnableAPIUserDeletion: Schema.Boolean,
  EnableAPIChannelDeletion: Schema.Boolean,
  ExperimentalEnableHardenedMode: Schema.Boolean,
  EnableEmailInvitations: Schema.Boolean,
  PostEditTimeLimit: Schema.Number,
  TimeBetweenUserTypingUpdatesMilliseconds: Schema.Number,
  EnableCrossTeamSearch: Schema.Boolean,
  CollapsedThreads: Schema.String,
  ThreadAutoFollow: Schema.Boolean,
  ManagedResourcePaths: Schema.String,
  EnableLocalMode: Schema.Boolean,
  EnableLatex: Schema.Boolean,
  EnableInlineLatex: Schema.Boolean,
  EnableAWSMetering: Schema.Boolean,
  SplitKey: Schema.String,
  FeatureFlagSyncIntervalSeconds: Schema.Number,
  DebugSplit: Schema.Boolean,
  EnableSVGs: Schema.Boolean,
  EnableFileSearch: Schema.Boolean,
  MaximumLoginAttempts: Schema.Number,
  WebserverMode: Schema.String,
  GoroutineHealthThreshold: Schema.Number,
  MaximumPayloadSizeBytes: Schema.Number,
  MaximumURLLength: Schema.Number,
  ScheduledPosts: Schema.Boolean,
  RefreshPostStatsRunTime: Schema.String,
  AllowSyncedDrafts: Schema.Boolean,
  UniqueEmojiReactionLimitPerPost: Schema.Number,
  PersistentNotificationIntervalMinutes: Schema.Number,
  PersistentNotificationMaxCount: Schema.Number,
  PersistentNotificationMaxRecipients: Schema.Number,
  AllowPersistentNotifications: Schema.Boolean,
  AllowPersistentNotificationsForGuests: Schema.Boolean,
  SelfHostedPurchase: Schema.Boolean,
  EnableAPIPostDeletion: Schema.Boolean,
  EnableDesktopLandingPage: Schema.Boolean
})

const TeamSettings = Schema.Struct({
  SiteName: Schema.String,
  MaxUsersPerTeam: Schema.Number,
  EnableCustomUserStatuses: Schema.Boolean,
  EnableUserCreation: Schema.Boolean,
  EnableOpenServer: Schema.Boolean,
  EnableTeamCreation: Schema.Boolean,
  EnableUserDeactivation: Schema.Boolean,
  RestrictCreationToDomains: Schema.String,
  EnableCustomBrand: Schema.Boolean,
  CustomBrandText: Schema.String,
  CustomDescriptionText: Schema.String,
  RestrictDirectMessage: Schema.String,
  UserStatusAwayTimeout: Schema.Number,
  MaxChannelsPerTeam: Schema.Number,
  MaxNotificationsPerChannel: Schema.Number,
  EnableConfirmNotificationsToChannel: Schema.Boolean,
  TeammateNameDisplay: Schema.String,
  ExperimentalViewArchivedChannels: Schema.Boolean,
  ExperimentalEnableAutomaticReplies: Schema.Boolean,
  LockTeammateNameDisplay: Schema.Boolean,
  ExperimentalPrimaryTeam: Schema.String,
  ExperimentalDefaultChannels: Strings,
  EnableLastActiveTime: Schema.Boolean,
  EnableJoinLeaveMessageByDefault: Schema.Boolean,
  EnableChannelCategorySorting: Schema.Boolean
})

const ClientRequirements = Schema.Struct({
  AndroidLatestVersion: Schema.String,
  AndroidMinVersion: Schema.String,
  IosLatestVersion: Schema.String,
  IosMinVersion: Schema.String
})

const SqlSettings = Schema.Struct({
  DriverName: Schema.String,
  DataSource: Schema.String,
  DataSourceReplicas: Strings,
  DataSourceSearchReplicas: Strings,
  MaxIdleConns: Schema.Number,
  MaxOpenConns: Schema.Number,
  ConnMaxLifetimeMilliseconds: Schema.Number,
  ConnMaxIdleTimeMilliseconds: Schema.Number,
  Trace: Schema.Boolean,
  AtRestEncryptKey: Schema.String,
  QueryTimeout: Schema.Number,
  DisableDatabaseSearch: Schema.Boolean,
  MigrationsStatementTimeoutSeconds: Schema.Number,
  ReplicaLagSettings: Schema.Array(ReplicaLagSetting),
  ReplicaMonitorIntervalSeconds: Schema.Number
})

const LogSettings = Schema.Struct({
  EnableConsole: Schema.Boolean,
  ConsoleLevel: Schema.String,
  ConsoleJson: Schema.Boolean,
  EnableColor: Schema.Boolean,
  EnableFile: Schema.Boolean,
  FileLevel: Schema.String,
  FileJson: Schema.Boolean,
  FileLocation: Schema.String,
  EnableWebhookDebugging: Schema.Boolean,
  EnableDiagnostics: Schema.Boolean,
  EnableSentry: Schema.Boolean,
  AdvancedLoggingJSON: AdvancedLoggingJSON,
  MaxFieldSize: Schema.Number
})

const ExperimentalAuditSettings = Schema.Struct({
  FileEnabled: Schema.Boolean,
  FileName: Schema.String,
  FileMaxSizeMB: Schema.Number,
  FileMaxAgeDays: Schema.Number,
  FileMaxBackups: Schema.Number,
  FileCompress: Schema.Boolean,
  FileMaxQueueSize: Schema.Number,
  AdvancedLoggingJSON: AdvancedLoggingJSON
})

const PasswordSettings = Schema.Struct({
  MinimumLength: Schema.Number,
  Lowercase: Schema.Boolean,
  Number: Schema.Boolean,
  Uppercase: Schema.Boolean,
  Symbol: Schema.Boolean,
  EnableForgotLink: Schema.Boolean
})

const FileSettings = Schema.Struct({
  EnableFileAttachments: Schema.Boolean,
  EnableMobileUpload: Schema.Boolean,
  EnableMobileDownload: Schema.Boolean,
  MaxFileSize: Schema.Number,
  MaxImageResolution: Schema.Number,
  MaxImageDecoderConcurrency: Schema.Number,
  DriverName: Schema.String,
  Directory: Schema.String,
  EnablePublicLink: Schema.Boolean,
  ExtractContent: Schema.Boolean,
  ArchiveRecursion: Schema.Boolean,
  PublicLinkSalt: Schema.String,
  InitialFont: Schema.String,
  AmazonS3AccessKeyId: Schema.String,
  AmazonS3SecretAccessKey: Schema.String,
  AmazonS3Bucket: Schema.String,
  AmazonS3PathPrefix: Schema.String,
  AmazonS3Region: Schema.String,
  AmazonS3Endpoint: Schema.String,
  AmazonS3SSL: Schema.Boolean,
  AmazonS3SignV2: Schema.Boolean,
  AmazonS3SSE: Schema.Boolean,
  AmazonS3Trace: Schema.Boolean,
  AmazonS3RequestTimeoutMilliseconds: Schema.Number,
  DedicatedExportStore: Schema.Boolean
})

const EmailSettings = Schema.Struct({
  EnableSignUpWithEmail: Schema.Boolean,
  EnableSignInWithEmail: Schema.Boolean,
  EnableSignInWithUsername: Schema.Boolean,
  SendEmailNotifications: Schema.Boolean,
  UseChannelInEmailNotifications: Schema.Boolean,
  RequireEmailVerification: Schema.Boolean,
  FeedbackName: Schema.String,
  FeedbackEmail: Schema.String,
  ReplyToAddress: Schema.String,
  FeedbackOrganization: Schema.String,
  EnableSMTPAuth: Schema.Boolean,
  SMTPUsername: Schema.String,
  SMTPPassword: Schema.String,
  SMTPServer: Schema.String,
  SMTPPort: Schema.String,
  SMTPServerTimeout: Schema.Number,
  ConnectionSecurity: Schema.String,
  SendPushNotifications: Schema.Boolean,
  PushNotificationServer: Schema.String,
  PushNotificationContents: Schema.String,
  PushNotificationBuffer: Schema.Number,
  EnableEmailBatching: Schema.Boolean,
  EmailBatchingBufferSize: Schema.Number,
  EmailBatchingInterval: Schema.Number,
  EnablePreviewModeBanner: Schema.Boolean,
  SkipServerCertificateVerification: Schema.Boolean,
  EmailNotificationContentsType: Schema.String,
  LoginButtonColor: Schema.String,
  LoginButtonBorderColor: Schema.String,
  LoginButtonTextColor: Schema.String
})

const RateLimitSettings = Schema.Struct({
  Enable: Schema.Boolean,
  PerSec: Schema.Number,
  MaxBurst: Schema.Number,
  MemoryStoreSize: Schema.Number,
  VaryByRemoteAddr: Schema.Boolean,
  VaryByUser: Schema.Boolean,
  VaryByHeader: Schema.String
})

const PrivacySettings = Schema.Struct({
  ShowEmailAddress: Schema.Boolean,
  ShowFullName: Schema.Boolean
})

const SupportSettings = Schema.Struct({
  TermsOfServiceLink: Schema.String,
  PrivacyPolicyLink: Schema.String,
  AboutLink: Schema.String,
  HelpLink: Schema.String,
  ReportAProblemLink: Schema.String,
  ReportAProblemType: Schema.String,
  ReportAProblemMail: Schema.String,
  AllowDownloadLogs: Schema.Boolean,
  SupportEmail: Schema.String,
  CustomTermsOfServiceEnabled: Schema.Boolean,
  CustomTermsOfServiceReAcceptancePeriod: Schema.Number,
  EnableAskCommunityLink: Schema.Boolean
})

const AnnouncementSettings = Schema.Struct({
  EnableBanner: Schema.Boolean,
  BannerText: Schema.String,
  BannerColor: Schema.String,
  BannerTextColor: Schema.String,
  AllowBannerDismissal: Schema.Boolean,
  AdminNoticesEnabled: Schema.Boolean,
  UserNoticesEnabled: Schema.Boolean,
  NoticesURL: Schema.String,
  NoticesFetchFrequency: Schema.Number,
  NoticesSkipCache: Schema.Boolean
})

const ThemeSettings = Schema.Struct({
  EnableThemeSelection: Schema.Boolean,
  DefaultTheme: Schema.String,
  AllowCustomThemes: Schema.Boolean,
  AllowedThemes: Strings
})

/** The OAuth sign-in sections (GitLab, Google, OpenID Connect; Office 365 adds DirectoryId), secrets masked. */
const SsoSettings = Schema.Struct({
  Enable: Schema.Boolean,
  Secret: Schema.String,
  Id: Schema.String,
  Scope: Schema.String,
  AuthEndpoint: Schema.String,
  TokenEndpoint: Schema.String,
  UserAPIEndpoint: Schema.String,
  DiscoveryEndpoint: Schema.String,
  ButtonText: Schema.String,
  ButtonColor: Schema.String
})

const Office365Settings = Schema.Struct({ ...SsoSettings.fields, DirectoryId: Schema.String })

const LdapSettings = Schema.Struct({
  Enable: Schema.Boolean,
  EnableSync: Schema.Boolean,
  LdapServer: Schema.String,
  LdapPort: Schema.Number,
  ConnectionSecurity: Schema.String,
  BaseDN: Schema.String,
  BindUsername: Schema.String,
  BindPassword: Schema.String,
  LoginFieldName: Schema.String,
  EnableAdminFilter: Schema.Boolean,
  MaxPageSize: Schema.Number,
  SyncIntervalMinutes: Schema.Number
})

const ComplianceSettings = Schema.Struct({
  Enable: Schema.Boolean,
  Directory: Schema.String,
  EnableDaily: Schema.Boolean,
  BatchSize: Schema.Number
})

const LocalizationSettings = Schema.Struct({
  DefaultServerLocale: Schema.String,
  DefaultClientLocale: Schema.String,
  AvailableLocales: Schema.String,
  EnableExperimentalLocales: Schema.Boolean
})

const SamlSettings = Schema.Struct({
  Enable: Schema.Boolean,
  EnableSyncWithLdap: Schema.Boolean,
  EnableSyncWithLdapIncludeAuth: Schema.Boolean,
  IgnoreGuestsLdapSync: Schema.Boolean,
  Verify: Schema.Boolean,
  Encrypt: Schema.Boolean,
  SignRequest: Schema.Boolean,
  IdpURL: Schema.String,
  IdpDescriptorURL: Schema.String,
  IdpMetadataURL: Schema.String,
  ServiceProviderIdentifier: Schema.String,
  AssertionConsumerServiceURL: Schema.String,
  PrivateKeyFile: Schema.String,
  PublicCertificateFile: Schema.String,
  IdpCertificateFile: Schema.String,
  LoginButtonText: Schema.String
})

const NativeAppSettings = Schema.Struct({
  AppCustomURLSchemes: Strings,
  AppDownloadLink: Schema.String,
  AndroidAppDownloadLink: Schema.String,
  IosAppDownloadLink: Schema.String,
  MobileExternalBrowser: Schema.Boolean,
  MobileEnableBiometrics: Schema.Boolean,
  MobilePreventScreenCapture: Schema.Boolean,
  MobileJailbreakProtection: Schema.Boolean,
  MobileEnableSecureFilePreview: Schema.Boolean,
  MobileAllowPdfLinkNavigation: Schema.Boolean
})

const IntuneSettings = Schema.Struct({
  Enable: Schema.Boolean,
  TenantId: Schema.String,
  ClientId: Schema.String,
  AuthService: Schema.String
})

const ClusterSettings = Schema.Struct({
  Enable: Schema.Boolean,
  ClusterName: Schema.String,
  OverrideHostname: Schema.String,
  NetworkInterface: Schema.String,
  BindAddress: Schema.String,
  AdvertiseAddress: Schema.String,
  UseIPAddress: Schema.Boolean,
  EnableGossipCompression: Schema.Boolean,
  EnableExperimentalGossipEncryption: Schema.Boolean,
  ReadOnlyConfig: Schema.Boolean,
  GossipPort: Schema.Number
})

const MetricsSettings = Schema.Struct({
  Enable: Schema.Boolean,
  BlockProfileRate: Schema.Number,
  ListenAddress: Schema.String,
  EnableClientMetrics: Schema.Boolean,
  EnableNotificationMetrics: Schema.Boolean,
  ClientSideUserIds: Strings
})

const ExperimentalSettings = Schema.Struct({
  ClientSideCertEnable: Schema.Boolean,
  ClientSideCertCheck: Schema.String,
  LinkMetadataTimeoutMilliseconds: Schema.Number,
  RestrictSystemAdmin: Schema.Boolean,
  EnableSharedChannels: Schema.Boolean,
  EnableRemoteClusterService: Schema.Boolean,
  DisableAppBar: Schema.Boolean,
  DisableRefetchingOnBrowserFocus: Schema.Boolean,
  DelayChannelAutocomplete: Schema.Boolean,
  DisableWakeUpReconnectHandler: Schema.Boolean,
  UsersStatusAndProfileFetchingPollIntervalMilliseconds: Schema.Number,
  YoutubeReferrerPolicy: Schema.Boolean,
  ExperimentalChannelCategorySorting: Schema.Boolean
})

const AnalyticsSettings = Schema.Struct({
  MaxUsersForStatistics: Schema.Number
})

const CacheSettings = Schema.Struct({
  CacheType: Schema.String,
  RedisAddress: Schema.String,
  RedisPassword: Schema.String,
  RedisDB: Schema.Number,
  RedisCachePrefix: Schema.String,
  DisableClientCache: Schema.Boolean
})

const ElasticsearchSettings = Schema.Struct({
  ConnectionURL: Schema.String,
  Username: Schema.String,
  Password: Schema.String,
  EnableIndexing: Schema.Boolean,
  EnableSearching: Schema.Boolean,
  EnableAutocomplete: Schema.Boolean,
  Sniff: Schema.Boolean,
  PostIndexReplicas: Schema.Number,
  PostIndexShards: Schema.Number,
  ChannelIndexReplicas: Schema.Number,
  ChannelIndexShards: Schema.Number,
  UserIndexReplicas: Schema.Number,
  UserIndexShards: Schema.Number,
  AggregatePostsAfterDays: Schema.Number,
  PostsAggregatorJobStartTime: Schema.String,
  IndexPrefix: Schema.String,
  LiveIndexingBatchSize: Schema.Number,
  BatchSize: Schema.Number,
  RequestTimeoutSeconds: Schema.Number,
  SkipTLSVerification: Schema.Boolean,
  CA: Schema.String,
  ClientCert: Schema.String,
  ClientKey: Schema.String,
  Trace: Schema.String,
  Backend: Schema.String,
  IgnoredPurgeIndexes: Schema.String
})

const DataRetentionSettings = Schema.Struct({
  EnableMessageDeletion: Schema.Boolean,
  EnableFileDeletion: Schema.Boolean,
  EnableBoardsDeletion: Schema.Boolean,
  MessageRetentionDays: Schema.Number,
  MessageRetentionHours: Schema.Number,
  FileRetentionDays: Schema.Number,
  FileRetentionHours: Schema.Number,
  BoardsRetentionDays: Schema.Number,
  DeletionJobStartTime: Schema.String,
  BatchSize: Schema.Number,
  TimeBetweenBatchesMilliseconds: Schema.Number,
  RetentionIdsBatchSize: Schema.Number
})

const MessageExportSettings = Schema.Struct({
  EnableExport: Schema.Boolean,
  ExportFormat: Schema.String,
  DailyRunTime: Schema.String,
  ExportFromTimestamp: Schema.Number,
  BatchSize: Schema.Number,
  DownloadExportResults: Schema.Boolean,
  ChannelBatchSize: Schema.Number,
  ChannelHistoryBatchSize: Schema.Number,
  GlobalRelaySettings: Schema.Struct({
    CustomerType: Schema.String,
    SMTPUsername: Schema.String,
    SMTPPassword: Schema.String,
    EmailAddress: Schema.String,
    SMTPServerTimeout: Schema.Number,
    CustomSMTPServerName: Schema.String,
    CustomSMTPPort: Schema.String
  })
})

const JobSettings = Schema.Struct({
  RunJobs: Schema.Boolean,
  RunScheduler: Schema.Boolean,
  CleanupJobsThresholdDays: Schema.Number,
  CleanupConfigThresholdDays: Schema.Number
})

const PluginSettings = Schema.Struct({
  Enable: Schema.Boolean,
  EnableUploads: Schema.Boolean,
  AllowInsecureDownloadURL: Schema.Boolean,
  EnableHealthCheck: Schema.Boolean,
  Directory: Schema.String,
  ClientDirectory: Schema.String,
  Plugins: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  PluginStates: Schema.Record({ key: Schema.String, value: Schema.Struct({ Enable: Schema.Boolean }) }),
  EnableMarketplace: Schema.Boolean,
  EnableRemoteMarketplace: Schema.Boolean,
  AutomaticPrepackagedPlugins: Schema.Boolean,
  RequirePluginSignature: Schema.Boolean,
  MarketplaceURL: Schema.String,
  SignaturePublicKeyFiles: Strings,
  ChimeraOAuthProxyURL: Schema.String
})

const DisplaySettings = Schema.Struct({
  CustomURLSchemes: Strings,
  MaxMarkdownNodes: Schema.Number
})

const GuestAccountsSettings = Schema.Struct({
  Enable: Schema.Boolean,
  HideTags: Schema.Boolean,
  AllowEmailAccounts: Schema.Boolean,
  EnforceMultifactorAuthentication: Schema.Boolean,
  RestrictCreationToDomains: Schema.String
})

const ImageProxySettings = Schema.Struct({
  Enable: Schema.Boolean,
  ImageProxyType: Schema.String,
  RemoteImageProxyURL: Schema.String,
  RemoteImageProxyOptions: Schema.String
})

const CloudSettings = Schema.Struct({
  CWSURL: Schema.String,
  CWSAPIURL: Schema.String,
  CWSMock: Schema.Boolean,
  Disable: Schema.Boolean
})

const FeatureFlags = Schema.Struct({
  CallsEnabled: Schema.Boolean,
  CollapsedThreads: Schema.Boolean,
  CustomProfileAttributes: Schema.Boolean
})

/** ImportSettings and ExportSettings: where the files go and how long they are kept. */
const FileJobSettings = Schema.Struct({
  Directory: Schema.String,
  RetentionDays: Schema.Number
})

const WranglerSettings = Schema.Struct({
  PermittedWranglerRoles: Strings,
  AllowedEmailDomain: Strings,
  MoveThreadMaxCount: Schema.Number,
  MoveThreadToAnotherTeamEnable: Schema.Boolean,
  MoveThreadFromPrivateChannelEnable: Schema.Boolean,
  MoveThreadFromDirectMessageChannelEnable: Schema.Boolean,
  MoveThreadFromGroupMessageChannelEnable: Schema.Boolean
})

const ConnectedWorkspacesSettings = Schema.Struct({
  EnableSharedChannels: Schema.Boolean,
  EnableRemoteClusterService: Schema.Boolean,
  DisableSharedChannelsStatusSync: Schema.Boolean,
  MaxPostsPerSync: Schema.Number
})

const AccessControlSettings = Schema.Struct({
  EnableAttributeBasedAccessControl: Schema.Boolean,
  EnableChannelScopeAccessControl: Schema.Boolean,
  EnableUserManagedAttributes: Schema.Boolean
})

const ContentFlaggingSettings = Schema.Struct({
  EnableContentFlagging: Schema.Boolean
})

const AutoTranslationSettings = Schema.Struct({
  Enable: Schema.Boolean
})

const MobileEphemeralModeSettings = Schema.Struct({
  Enable: Schema.Boolean
})

export const Config = Schema.Struct({
  ServiceSettings,
  TeamSettings,
  ClientRequirements,
  SqlSettings,
  LogSettings,
  ExperimentalAuditSettings,
  PasswordSettings,
  FileSettings,
  EmailSettings,
  RateLimitSettings,
  PrivacySettings,
  SupportSettings,
  AnnouncementSettings,
  ThemeSettings,
  GitLabSettings: SsoSettings,
  GoogleSettings: SsoSettings,
  Office365Settings,
  OpenIdSettings: SsoSettings,
  LdapSettings,
  ComplianceSettings,
  LocalizationSettings,
  SamlSettings,
  NativeAppSettings,
  IntuneSettings,
  ClusterSettings,
  MetricsSettings,
  ExperimentalSettings,
  AnalyticsSettings,
  CacheSettings,
  ElasticsearchSettings,
  DataRetentionSettings,
  MessageExportSettings,
  JobSettings,
  PluginSettings,
  DisplaySettings,
  GuestAccountsSettings,
  ImageProxySettings,
  CloudSettings,
  FeatureFlags,
  ImportSettings: FileJobSettings,
  ExportSettings: FileJobSettings,
  WranglerSettings,
  ConnectedWorkspacesSettings,
  AccessControlSettings,
  ContentFlaggingSettings,
  AutoTranslationSettings,
  MobileEphemeralModeSettings
})

export type Config = typeof Config.Type

/**
 * `GET /config/environment`: per section, the settings fixed by the environment (each `true`), which the console
 * shows as not editable; which sections and keys appear depends on the deployment.
 */
export const ConfigEnvironment = Schema.Record({ key: Schema.String, value: Schema.Record({ key: Schema.String, value: Schema.Boolean }) })
export type ConfigEnvironment = typeof ConfigEnvironment.Type
