import { Effect, Option } from "effect"
import { AppConfig, type ResolvedConfig } from "../Config.ts"
import { FileSettings } from "../files/FileSettings.ts"
import { integrationSwitches } from "../integrations/IntegrationSettings.ts"
import { PushSettings } from "../push/PushSettings.ts"
import { SsoDirectory } from "../sso/SsoDirectory.ts"
import { runtimeSettings } from "./RuntimeSettings.ts"
import { accountLimits, loginOptions, pushConfigured, siteBranding, siteName, siteNameDisplay, siteSwitches } from "./ServerSettings.ts"

/**
 * GET /config: the service's real settings in the shape of Mattermost's config document (what the System Console
 * reads), every section present so that no console page finds one missing. Values are what this server does:
 * features it lacks are off, secrets are masked as Mattermost masks them. Which settings can change at run time,
 * and how, is ConfigUpdate.ts.
 */
export const MASK = "********************************"

const LOG_LEVELS: Record<string, string> = { Trace: "DEBUG", Debug: "DEBUG", Info: "INFO", Warning: "WARN", Error: "ERROR", Fatal: "ERROR", All: "DEBUG", None: "ERROR" }

const sso = (enabled: boolean) => ({
  Enable: enabled,
  Secret: enabled ? MASK : "",
  Id: "",
  Scope: "",
  AuthEndpoint: "",
  TokenEndpoint: "",
  UserAPIEndpoint: "",
  DiscoveryEndpoint: "",
  ButtonText: "",
  ButtonColor: ""
})

export const configDocument = Effect.gen(function*() {
  const app: ResolvedConfig = yield* AppConfig
  const name = yield* siteName
  const switches = yield* siteSwitches
  const branding = yield* siteBranding
  const files = yield* Effect.flatMap(FileSettings, (s) => s.current)
  const login = yield* loginOptions
  const push = yield* pushConfigured
  const pushView = yield* Effect.flatMap(PushSettings, (s) => s.view)
  const ssoSettings = yield* Effect.flatMap(SsoDirectory, (d) => d.settings)
  const cluster = Option.isSome(app.cacheUrl)
  const integrations = yield* integrationSwitches
  const limits = yield* accountLimits
  const names = yield* siteNameDisplay
  const runtime = yield* runtimeSettings
  return {
    ServiceSettings: {
      SiteURL: app.siteUrl,
      ListenAddress: `${app.host}:${app.port}`,
      ConnectionSecurity: "",
      TrustedProxyIPHeader: ["X-Forwarded-For", "X-Real-IP"],
      EnableInsecureOutgoingConnections: false,
      EnableOAuthServiceProvider: false,
      EnableIncomingWebhooks: integrations.enableIncomingWebhooks,
      EnableOutgoingWebhooks: integrations.enableOutgoingWebhooks,
      EnableOutgoingOAuthConnections: false,
      EnableCommands: integrations.enableCommands,
      EnablePostUsernameOverride: integrations.enablePostUsernameOverride,
      EnablePostIconOverride: integrations.enablePostIconOverride,
      PostPriority: switches.postPriority,
      EnableLinkPreviews: switches.enableLinkPreviews,
      ExperimentalEnableDefaultChannelLeaveJoinMessages: switches.defaultChannelLeaveJoinMessages,
      EnablePermalinkPreviews: true,
      EnableTesting: false,
      EnableDeveloper: false,
      EnableClientPerformanceDebugging: false,
      EnableSecurityFixAlert: false,
      EnableInsecureOutgoingConnection: false,
      AllowCorsFrom: app.corsAllowedOrigins.join(" "),
      CorsAllowCredentials: app.corsAllowedOrigins.length > 0,
      // The second factor (src/mfa/) and sessions, as RuntimeSettings.ts holds them for every request.
      EnableMultifactorAuthentication: runtime.enableMfa,
      EnforceMultifactorAuthentication: runtime.enforceMfa,
      SessionLengthWebInHours: runtime.sessionHours.web,
      SessionLengthMobileInHours: runtime.sessionHours.mobile,
      SessionLengthSSOInHours: runtime.sessionHours.sso,
      // Sessions keep the length they were given: activity does not extend them, so the idle timeout applies.
      ExtendSessionLengthWithActivity: false,
      SessionIdleTimeoutInMinutes: runtime.idleTimeoutMinutes,
      SessionCacheInMinutes: 10,
      WebsocketURL: "",
      EnableCustomEmoji: runtime.enableCustomEmoji,
      EnableEmojiPicker: true,
      EnableGifPicker: runtime.enableGifPicker,
      GiphySdkKey: "",
      EnableUserAccessTokens: integrations.enableUserAccessTokens,
      EnableBotAccountCreation: integrations.enableBotAccountCreation,
      EnableUserTypingMessages: true,
      EnableChannelViewedMessages: true,
      EnableUserStatuses: true,
      EnablePreviewFeatures: false,
      EnableTutorial: false,
      EnableOnboardingFlow: true,
      ExperimentalGroupUnreadChannels: "disabled",
      EnableAPITeamDeletion: false,
      EnableAPIUserDeletion: false,
      EnableAPIChannelDeletion: false,
      ExperimentalEnableHardenedMode: false,
      EnableEmailInvitations: false,
      PostEditTimeLimit: -1,
      TimeBetweenUserTypingUpdatesMilliseconds: 5000,
      EnableCrossTeamSearch: true,
      CollapsedThreads: "default_on",
      ThreadAutoFollow: true,
      ManagedResourcePaths: "",
      EnableLocalMode: false,
      EnableLatex: true,
      EnableInlineLatex: true,
      EnableAWSMetering: false,
      SplitKey: "",
      FeatureFlagSyncIntervalSeconds: 0,
      DebugSplit: false,
      EnableSVGs: false,
      EnableFileSearch: true,
      MaximumLoginAttempts: limits.maximumLoginAttempts,
      WebserverMode: Option.isSome(app.webappDir) ? "gzip" : "disabled",
      GoroutineHealthThreshold: -1,
      MaximumPayloadSizeBytes: 300000,
      MaximumURLLength: 2048,
      ScheduledPosts: false,
      RefreshPostStatsRunTime: "00:00",
      AllowSyncedDrafts: false,
      UniqueEmojiReactionLimitPerPost: 50,
      PersistentNotificationIntervalMinutes: 5,
      PersistentNotificationMaxCount: 6,
      PersistentNotificationMaxRecipients: 5,
      AllowPersistentNotifications: false,
      AllowPersistentNotificationsForGuests: false,
      SelfHostedPurchase: false,
      EnableAPIPostDeletion: false,
      EnableDesktopLandingPage: true
    },
    TeamSettings: {
      SiteName: name,
      MaxUsersPerTeam: limits.maxUsersPerTeam,
      EnableCustomUserStatuses: true,
      EnableUserCreation: switches.enableUserCreation,
      EnableOpenServer: switches.enableOpenServer,
      EnableTeamCreation: switches.enableTeamCreation,
      EnableUserDeactivation: false,
      RestrictCreationToDomains: runtime.restrictCreationToDomains,
      EnableCustomBrand: branding.enableCustomBrand,
      CustomBrandText: branding.customBrandText,
      CustomDescriptionText: branding.customDescriptionText,
      RestrictDirectMessage: "any",
      UserStatusAwayTimeout: 300,
      MaxChannelsPerTeam: limits.maxChannelsPerTeam,
      MaxNotificationsPerChannel: 1000,
      EnableConfirmNotificationsToChannel: true,
      TeammateNameDisplay: names.teammateNameDisplay,
      ExperimentalViewArchivedChannels: true,
      ExperimentalEnableAutomaticReplies: false,
      LockTeammateNameDisplay: names.lockTeammateNameDisplay,
      ExperimentalPrimaryTeam: "",
      ExperimentalDefaultChannels: [],
      EnableLastActiveTime: true,
      EnableJoinLeaveMessageByDefault: false,
      EnableChannelCategorySorting: true
    },
    ClientRequirements: { AndroidLatestVersion: "", AndroidMinVersion: "", IosLatestVersion: "", IosMinVersion: "" },
    SqlSettings: {
      DriverName: "postgres",
      DataSource: MASK,
      DataSourceReplicas: [],
      DataSourceSearchReplicas: [],
      MaxIdleConns: app.dbPoolMin,
      MaxOpenConns: app.dbPoolMax,
      ConnMaxLifetimeMilliseconds: 3600000,
      ConnMaxIdleTimeMilliseconds: 300000,
      Trace: false,
      AtRestEncryptKey: MASK,
      QueryTimeout: 10,
      DisableDatabaseSearch: false,
      MigrationsStatementTimeoutSeconds: 0,
      ReplicaLagSettings: [],
      ReplicaMonitorIntervalSeconds: 5
    },
    LogSettings: {
      EnableConsole: true,
      ConsoleLevel: LOG_LEVELS[app.logLevel.label] ?? "INFO",
      ConsoleJson: true,
      EnableColor: false,
      EnableFile: false,
      FileLevel: "INFO",
      FileJson: true,
      FileLocation: "",
      EnableWebhookDebugging: false,
      EnableDiagnostics: false,
      EnableSentry: false,
      AdvancedLoggingJSON: {},
      MaxFieldSize: 2048
    },
    ExperimentalAuditSettings: { FileEnabled: false, FileName: "", FileMaxSizeMB: 100, FileMaxAgeDays: 0, FileMaxBackups: 0, FileCompress: false, FileMaxQueueSize: 1000, AdvancedLoggingJSON: {} },
    PasswordSettings: {
      MinimumLength: runtime.password.minimumLength,
      Lowercase: runtime.password.lowercase,
      Number: runtime.password.number,
      Uppercase: runtime.password.uppercase,
      Symbol: runtime.password.symbol,
      EnableForgotLink: false
    },
    FileSettings: {
      EnableFileAttachments: true,
      EnableMobileUpload: true,
      EnableMobileDownload: true,
      MaxFileSize: files.maxFileSize,
      MaxImageResolution: 33177600,
      MaxImageDecoderConcurrency: -1,
      DriverName: "local",
      Directory: `${app.dataDir}/files`,
      EnablePublicLink: files.enablePublicLink,
      ExtractContent: false,
      ArchiveRecursion: false,
      PublicLinkSalt: MASK,
      InitialFont: "nunito-bold.ttf",
      AmazonS3AccessKeyId: "",
      AmazonS3SecretAccessKey: "",
      AmazonS3Bucket: "",
      AmazonS3PathPrefix: "",
      AmazonS3Region: "",
      AmazonS3Endpoint: "",
      AmazonS3SSL: true,
      AmazonS3SignV2: false,
      AmazonS3SSE: false,
      AmazonS3Trace: false,
      AmazonS3RequestTimeoutMilliseconds: 30000,
      DedicatedExportStore: false
    },
    EmailSettings: {
      EnableSignUpWithEmail: login.passwordLogin,
      EnableSignInWithEmail: login.passwordLogin,
      EnableSignInWithUsername: login.passwordLogin,
      SendEmailNotifications: Option.isSome(app.smtpUrl),
      UseChannelInEmailNotifications: false,
      RequireEmailVerification: false,
      FeedbackName: "",
      FeedbackEmail: "",
      ReplyToAddress: "",
      FeedbackOrganization: "",
      EnableSMTPAuth: false,
      SMTPUsername: "",
      SMTPPassword: "",
      SMTPServer: "",
      SMTPPort: "",
      SMTPServerTimeout: 10,
      ConnectionSecurity: "",
      SendPushNotifications: push && runtime.sendPushNotifications,
      PushNotificationServer: pushView.push_proxy_url ?? "",
      PushNotificationContents: runtime.pushContents,
      PushNotificationBuffer: 1000,
      // Notification emails are always batched, each user at their own interval (src/mail/EmailNotifications.ts).
      EnableEmailBatching: Option.isSome(app.smtpUrl),
      EmailBatchingBufferSize: 256,
      EmailBatchingInterval: Math.max(1, Math.round(app.emailBatchingCheckMs / 1000)),
      EnablePreviewModeBanner: false,
      SkipServerCertificateVerification: false,
      EmailNotificationContentsType: "full",
      LoginButtonColor: "",
      LoginButtonBorderColor: "",
      LoginButtonTextColor: ""
    },
    RateLimitSettings: {
      Enable: app.rateLimitEnabled,
      PerSec: Math.max(1, Math.round(app.rateLimitAuthPerMinute / 60)),
      MaxBurst: app.rateLimitAuthPerMinute,
      MemoryStoreSize: 10000,
      VaryByRemoteAddr: true,
      VaryByUser: false,
      VaryByHeader: ""
    },
    PrivacySettings: { ShowEmailAddress: false, ShowFullName: true },
    SupportSettings: {
      TermsOfServiceLink: "",
      PrivacyPolicyLink: "",
      AboutLink: "",
      HelpLink: "",
      ReportAProblemLink: "",
      ReportAProblemType: "",
      ReportAProblemMail: "",
      AllowDownloadLogs: false,
      SupportEmail: "",
      CustomTermsOfServiceEnabled: false,
      CustomTermsOfServiceReAcceptancePeriod: 365,
      EnableAskCommunityLink: false
    },
    AnnouncementSettings: {
      EnableBanner: false,
      BannerText: "",
      BannerColor: "#f2a93b",
      BannerTextColor: "#333333",
      AllowBannerDismissal: true,
      AdminNoticesEnabled: false,
      UserNoticesEnabled: false,
      NoticesURL: "",
      NoticesFetchFrequency: 3600,
      NoticesSkipCache: false
    },
    ThemeSettings: { EnableThemeSelection: true, DefaultTheme: "default", AllowCustomThemes: true, AllowedThemes: [] },
    GitLabSettings: sso(ssoSettings.enable_sso && login.gitlab),
    GoogleSettings: sso(ssoSettings.enable_sso && login.google),
    Office365Settings: { ...sso(false), DirectoryId: "" },
    OpenIdSettings: { ...sso(ssoSettings.enable_sso && Option.isSome(login.openId)), ButtonText: Option.getOrElse(login.openId, () => "") },
    LdapSettings: { Enable: false, EnableSync: false, LdapServer: "", LdapPort: 389, ConnectionSecurity: "", BaseDN: "", BindUsername: "", BindPassword: "", LoginFieldName: "", EnableAdminFilter: false, MaxPageSize: 0, SyncIntervalMinutes: 60 },
    ComplianceSettings: { Enable: false, Directory: "", EnableDaily: false, BatchSize: 30000 },
    LocalizationSettings: { DefaultServerLocale: "en", DefaultClientLocale: "en", AvailableLocales: "", EnableExperimentalLocales: false },
    SamlSettings: { Enable: false, EnableSyncWithLdap: false, EnableSyncWithLdapIncludeAuth: false, IgnoreGuestsLdapSync: false, Verify: true, Encrypt: true, SignRequest: false, IdpURL: "", IdpDescriptorURL: "", IdpMetadataURL: "", ServiceProviderIdentifier: "", AssertionConsumerServiceURL: "", PrivateKeyFile: "", PublicCertificateFile: "", IdpCertificateFile: "", LoginButtonText: "" },
    NativeAppSettings: { AppCustomURLSchemes: ["mmauth://", "mmauthbeta://"], AppDownloadLink: "", AndroidAppDownloadLink: "", IosAppDownloadLink: "", MobileExternalBrowser: false, MobileEnableBiometrics: false, MobilePreventScreenCapture: false, MobileJailbreakProtection: false, MobileEnableSecureFilePreview: false, MobileAllowPdfLinkNavigation: false },
    IntuneSettings: { Enable: false, TenantId: "", ClientId: "", AuthService: "" },
    ClusterSettings: { Enable: cluster, ClusterName: "", OverrideHostname: "", NetworkInterface: "", BindAddress: "", AdvertiseAddress: "", UseIPAddress: true, EnableGossipCompression: true, EnableExperimentalGossipEncryption: false, ReadOnlyConfig: true, GossipPort: 8074 },
    MetricsSettings: { Enable: true, BlockProfileRate: 0, ListenAddress: `${app.host}:${app.port}`, EnableClientMetrics: false, EnableNotificationMetrics: false, ClientSideUserIds: [] },
    ExperimentalSettings: { ClientSideCertEnable: false, ClientSideCertCheck: "secondary", LinkMetadataTimeoutMilliseconds: 5000, RestrictSystemAdmin: false, EnableSharedChannels: false, EnableRemoteClusterService: false, DisableAppBar: false, DisableRefetchingOnBrowserFocus: false, DelayChannelAutocomplete: false, DisableWakeUpReconnectHandler: false, UsersStatusAndProfileFetchingPollIntervalMilliseconds: 3000, YoutubeReferrerPolicy: false, ExperimentalChannelCategorySorting: false },
    AnalyticsSettings: { MaxUsersForStatistics: 2500 },
    CacheSettings: { CacheType: cluster ? "redis" : "lru", RedisAddress: cluster ? MASK : "", RedisPassword: cluster ? MASK : "", RedisDB: 0, RedisCachePrefix: "", DisableClientCache: false },
    ElasticsearchSettings: { ConnectionURL: "", Username: "", Password: "", EnableIndexing: false, EnableSearching: false, EnableAutocomplete: false, Sniff: false, PostIndexReplicas: 1, PostIndexShards: 1, ChannelIndexReplicas: 1, ChannelIndexShards: 1, UserIndexReplicas: 1, UserIndexShards: 1, AggregatePostsAfterDays: 365, PostsAggregatorJobStartTime: "03:00", IndexPrefix: "", LiveIndexingBatchSize: 1, BatchSize: 10000, RequestTimeoutSeconds: 30, SkipTLSVerification: false, CA: "", ClientCert: "", ClientKey: "", Trace: "", Backend: "elasticsearch", IgnoredPurgeIndexes: "" },
    DataRetentionSettings: { EnableMessageDeletion: false, EnableFileDeletion: false, EnableBoardsDeletion: false, MessageRetentionDays: 365, MessageRetentionHours: 0, FileRetentionDays: 365, FileRetentionHours: 0, BoardsRetentionDays: 365, DeletionJobStartTime: "02:00", BatchSize: 3000, TimeBetweenBatchesMilliseconds: 100, RetentionIdsBatchSize: 100 },
    MessageExportSettings: { EnableExport: false, ExportFormat: "actiance", DailyRunTime: "01:00", ExportFromTimestamp: 0, BatchSize: 10000, DownloadExportResults: false, ChannelBatchSize: 100, ChannelHistoryBatchSize: 10, GlobalRelaySettings: { CustomerType: "A9", SMTPUsername: "", SMTPPassword: "", EmailAddress: "", SMTPServerTimeout: 1800, CustomSMTPServerName: "", CustomSMTPPort: "25" } },
    JobSettings: { RunJobs: true, RunScheduler: true, CleanupJobsThresholdDays: -1, CleanupConfigThresholdDays: -1 },
    PluginSettings: { Enable: false, EnableUploads: false, AllowInsecureDownloadURL: false, EnableHealthCheck: true, Directory: "", ClientDirectory: "", Plugins: {}, PluginStates: {}, EnableMarketplace: false, EnableRemoteMarketplace: false, AutomaticPrepackagedPlugins: false, RequirePluginSignature: false, MarketplaceURL: "", SignaturePublicKeyFiles: [], ChimeraOAuthProxyURL: "" },
    DisplaySettings: { CustomURLSchemes: [], MaxMarkdownNodes: 0 },
    GuestAccountsSettings: { Enable: false, HideTags: false, AllowEmailAccounts: true, EnforceMultifactorAuthentication: false, RestrictCreationToDomains: "" },
    ImageProxySettings: { Enable: false, ImageProxyType: "local", RemoteImageProxyURL: "", RemoteImageProxyOptions: "" },
    CloudSettings: { CWSURL: "", CWSAPIURL: "", CWSMock: false, Disable: true },
    FeatureFlags: { CallsEnabled: true, CollapsedThreads: true, CustomProfileAttributes: false },
    ImportSettings: { Directory: "", RetentionDays: 30 },
    ExportSettings: { Directory: "", RetentionDays: 30 },
    WranglerSettings: { PermittedWranglerRoles: [], AllowedEmailDomain: [], MoveThreadMaxCount: 100, MoveThreadToAnotherTeamEnable: false, MoveThreadFromPrivateChannelEnable: false, MoveThreadFromDirectMessageChannelEnable: false, MoveThreadFromGroupMessageChannelEnable: false },
    ConnectedWorkspacesSettings: { EnableSharedChannels: false, EnableRemoteClusterService: false, DisableSharedChannelsStatusSync: false, MaxPostsPerSync: 50 },
    AccessControlSettings: { EnableAttributeBasedAccessControl: false, EnableChannelScopeAccessControl: false, EnableUserManagedAttributes: false },
    ContentFlaggingSettings: { EnableContentFlagging: false },
    AutoTranslationSettings: { Enable: false },
    MobileEphemeralModeSettings: { Enable: false }
  }
})

export type ConfigDocument = Effect.Effect.Success<typeof configDocument>

/**
 * Settings the environment fixes ("Section.Setting"), with the variable that sets them: PUT /config names it when
 * refusing a change, and the console shows the setting read-only with it (GET /api/v1/admin/config/sources).
 */
export const FROM_ENVIRONMENT: Record<string, string> = {
  "ServiceSettings.SiteURL": "SERVICE_SITE_URL",
  "ServiceSettings.ListenAddress": "SERVICE_HOST and SERVICE_PORT",
  "ServiceSettings.AllowCorsFrom": "SERVICE_CORS_ALLOWED_ORIGINS",
  "ServiceSettings.CorsAllowCredentials": "SERVICE_CORS_ALLOWED_ORIGINS",
  "ServiceSettings.WebserverMode": "SERVICE_WEBAPP_DIR",
  "SqlSettings.DataSource": "SERVICE_DATABASE_URL",
  "SqlSettings.MaxOpenConns": "SERVICE_DB_POOL__MAX_CONNECTIONS",
  "SqlSettings.MaxIdleConns": "SERVICE_DB_POOL__MIN_CONNECTIONS",
  "LogSettings.ConsoleLevel": "SERVICE_LOG_LEVEL",
  "RateLimitSettings.Enable": "SERVICE_SECURITY_RATE_LIMIT_ENABLED",
  "RateLimitSettings.PerSec": "SERVICE_SECURITY_RATE_LIMIT_AUTH_PER_MINUTE",
  "RateLimitSettings.MaxBurst": "SERVICE_SECURITY_RATE_LIMIT_AUTH_PER_MINUTE",
  "EmailSettings.SendEmailNotifications": "SERVICE_SMTP_URL",
  "EmailSettings.EnableEmailBatching": "SERVICE_SMTP_URL",
  "EmailSettings.EmailBatchingInterval": "SERVICE_EMAIL_BATCHING_CHECK_MS",
  "FileSettings.DriverName": "SERVICE_FILES_S3_BUCKET",
  "FileSettings.Directory": "SERVICE_DATA_DIR",
  "ClusterSettings.Enable": "SERVICE_CACHE_URL",
  "CacheSettings.CacheType": "SERVICE_CACHE_URL"
}

/**
 * GET /config/environment: the settings fixed by the environment (SERVICE_* variables), which the console shows
 * as not editable there, in Mattermost's shape (`true` for each).
 */
export const environmentSettings = Effect.gen(function*() {
  const app = yield* AppConfig
  const env: Record<string, Record<string, boolean>> = {
    ServiceSettings: { SiteURL: true, ListenAddress: true, AllowCorsFrom: true },
    SqlSettings: { DriverName: true, DataSource: true, MaxIdleConns: true, MaxOpenConns: true },
    LogSettings: { ConsoleLevel: true },
    RateLimitSettings: { Enable: true },
    FileSettings: { DriverName: true, Directory: true },
    ClusterSettings: { Enable: true },
    CacheSettings: { CacheType: true }
  }
  if (Option.isSome(app.cacheUrl)) env.CacheSettings = { ...env.CacheSettings, RedisAddress: true, RedisPassword: true }
  return env
})
