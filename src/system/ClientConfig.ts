import { Effect, Option } from "effect"
import { Mailer } from "../../layers/Mailer.ts"
import { AppConfig } from "../Config.ts"
import { FileSettings } from "../files/FileSettings.ts"
import { integrationSwitches } from "../integrations/IntegrationSettings.ts"
import { DiagnosticId } from "./DiagnosticId.ts"
import { Installation } from "./Installation.ts"
import { runtimeSettings } from "./RuntimeSettings.ts"
import { loginOptions, noAccounts, pushConfigured, siteBranding, siteName, siteNameDisplay, siteSwitches } from "./ServerSettings.ts"
import { SigningKey } from "./SigningKey.ts"
import { BUILD_DATE, BUILD_HASH, BUILD_NUMBER, MATTERMOST_VERSION } from "./Version.ts"

/**
 * GET /config/client?format=old: Mattermost's ClientConfig, every value a string, agreeing with GET /config
 * (ConfigDocument.ts) wherever both carry a setting. Anonymous callers get the limited
 * map the server screen and login screen need (mattermost-compat.md section 12); a session adds the rest. Features
 * this server does not have are reported off, so the clients never call their endpoints.
 */
const flag = (on: boolean) => (on ? "true" : "false")

export const clientConfig = (full: boolean) =>
  Effect.gen(function*() {
    const app = yield* AppConfig
    const diagnostic = yield* DiagnosticId
    const signing = yield* SigningKey
    const login = yield* loginOptions
    const push = yield* pushConfigured
    const name = yield* siteName
    const files = yield* Effect.flatMap(FileSettings, (settings) => settings.current)
    const switches = yield* siteSwitches
    const branding = yield* siteBranding
    const empty = yield* noAccounts
    const names = yield* siteNameDisplay
    const runtime = yield* runtimeSettings
    // The features that mail (password reset, notifications) are offered only when an SMTP server is configured.
    const mail = (yield* Mailer).enabled

    const limited: Record<string, string> = {
      Version: MATTERMOST_VERSION,
      BuildNumber: BUILD_NUMBER,
      BuildDate: BUILD_DATE,
      BuildHash: BUILD_HASH,
      BuildHashEnterprise: "none",
      BuildEnterpriseReady: "false",
      // Mattermost's names for its build's environment: "production" or "dev" ("test" is for its own test builds).
      ServiceEnvironment: app.isProduction ? "production" : "dev",
      DiagnosticId: diagnostic.value,
      TelemetryId: diagnostic.value,
      DiagnosticsEnabled: "false",
      EnableDiagnostics: "false",
      EnableFile: "false",
      FileLevel: "INFO",
      EnableComplianceExport: "false",
      EnableDesktopLandingPage: "true",
      SiteURL: app.siteUrl,
      SiteName: name,
      WebsocketURL: "",
      WebsocketPort: "80",
      WebsocketSecurePort: "443",
      AsymmetricSigningPublicKey: signing.publicKeyBase64,
      EnableSignUpWithEmail: flag(login.passwordLogin),
      EnableSignInWithEmail: flag(login.passwordLogin),
      EnableSignInWithUsername: flag(login.passwordLogin),
      EnableUserCreation: flag(switches.enableUserCreation),
      EnableOpenServer: flag(switches.enableOpenServer),
      EmailLoginButtonColor: "",
      EmailLoginButtonBorderColor: "",
      EmailLoginButtonTextColor: "",
      EnableLdap: "false",
      LdapLoginFieldName: "",
      LdapLoginButtonColor: "",
      LdapLoginButtonBorderColor: "",
      LdapLoginButtonTextColor: "",
      EnableSaml: "false",
      SamlLoginButtonText: "",
      SamlLoginButtonColor: "",
      SamlLoginButtonBorderColor: "",
      SamlLoginButtonTextColor: "",
      EnableSignUpWithGitLab: flag(login.gitlab),
      GitLabButtonText: "",
      GitLabButtonColor: "",
      EnableSignUpWithGoogle: flag(login.google),
      EnableSignUpWithOffice365: "false",
      EnableSignUpWithOpenId: flag(Option.isSome(login.openId)),
      OpenIdButtonText: Option.getOrElse(login.openId, () => ""),
      OpenIdButtonColor: "",
      EnableMultifactorAuthentication: flag(runtime.enableMfa),
      EnforceMultifactorAuthentication: flag(runtime.enableMfa && runtime.enforceMfa),
      PasswordEnableForgotLink: flag(mail && login.passwordLogin),
      ForgotPasswordLink: "",
      PasswordMinimumLength: String(runtime.password.minimumLength),
      PasswordRequireLowercase: flag(runtime.password.lowercase),
      PasswordRequireNumber: flag(runtime.password.number),
      PasswordRequireSymbol: flag(runtime.password.symbol),
      PasswordRequireUppercase: flag(runtime.password.uppercase),
      EnableGuestMagicLink: "false",
      EnableGuestAccounts: "false",
      GuestAccountsEnforceMultifactorAuthentication: "false",
      MobileExternalBrowser: "false",
      MobileJailbreakProtection: "false",
      MobileEnableBiometrics: "false",
      MobilePreventScreenCapture: "false",
      MobileEnableSecureFilePreview: "false",
      MobileAllowPdfLinkNavigation: "false",
      TermsOfServiceLink: "",
      PrivacyPolicyLink: "",
      AboutLink: "",
      HelpLink: "",
      ReportAProblemLink: "",
      ReportAProblemType: "",
      ReportAProblemMail: "",
      SupportEmail: "",
      EnableAskCommunityLink: "false",
      AppDownloadLink: "",
      AndroidAppDownloadLink: "",
      IosAppDownloadLink: "",
      NoAccounts: flag(empty),
      EnableCustomTermsOfService: "false",
      CustomTermsOfServiceId: "",
      CustomTermsOfServiceReAcceptancePeriod: "0",
      EnableCustomBrand: flag(branding.enableCustomBrand),
      CustomBrandText: branding.customBrandText,
      CustomDescriptionText: branding.customDescriptionText,
      DefaultClientLocale: "en",
      AvailableLocales: "",
      EnableBanner: "false",
      BannerText: "",
      BannerColor: "",
      BannerTextColor: "",
      AllowBannerDismissal: "false",
      AndroidLatestVersion: "",
      AndroidMinVersion: "",
      IosLatestVersion: "",
      IosMinVersion: "",
      IntuneMAMEnabled: "false",
      IntuneAuthService: "",
      IntuneScope: "",
      FeatureFlagAppsEnabled: "false",
      FeatureFlagCallsEnabled: "true",
      FeatureFlagChannelBookmarks: "false",
      FeatureFlagClassificationMarkings: "false",
      FeatureFlagCollapsedThreads: "true",
      FeatureFlagCustomProfileAttributes: "false",
      FeatureFlagMmBlocksEnabled: "false",
      FeatureFlagManagedChannelCategories: "false",
      FeatureFlagContentFlagging: "false"
    }
    if (!full) return limited
    const integrations = yield* integrationSwitches
    const installation = yield* Installation

    return {
      ...limited,
      AllowCustomThemes: "true",
      AllowDownloadLogs: "true",
      AllowEditPost: "always",
      AllowPersistentNotifications: "false",
      AllowPersistentNotificationsForGuests: "false",
      AllowSyncedDrafts: "true",
      AllowedThemes: "",
      AppsPluginEnabled: "false",
      AutoTranslationLanguages: "",
      BurnOnReadDurationSeconds: "0",
      BurnOnReadMaximumTimeToLiveSeconds: "0",
      CollapsedThreads: "default_on",
      DataRetentionEnableFileDeletion: "false",
      DataRetentionEnableMessageDeletion: "false",
      DataRetentionFileRetentionHours: "0",
      DataRetentionMessageRetentionHours: "0",
      DefaultTheme: "default",
      DelayChannelAutocomplete: "false",
      DisableRefetchingOnBrowserFocus: "false",
      DisableWakeUpReconnectHandler: "false",
      EmailNotificationContentsType: "full",
      EnableAutoTranslation: "false",
      EnableBotAccountCreation: flag(integrations.enableBotAccountCreation),
      EnableBurnOnRead: "false",
      EnableChannelCategorySorting: "true",
      EnableChannelViewedMessages: "true",
      EnableClientMetrics: "false",
      EnableCluster: "false",
      EnableCommands: flag(integrations.enableCommands),
      EnableCompliance: "false",
      EnableConfirmNotificationsToChannel: "true",
      EnableCrossTeamSearch: "true",
      EnableCustomEmoji: flag(runtime.enableCustomEmoji),
      EnableCustomGroups: "false",
      EnableCustomUserStatuses: "true",
      EnableDeveloper: "false",
      // With batching on, the web app offers 15-minute and hourly intervals (and shows 15 minutes by default).
      EnableEmailBatching: flag(mail),
      EnableEmailInvitations: flag(mail),
      EnableEmojiPicker: "true",
      EnableFileAttachments: "true",
      EnableGifPicker: flag(runtime.enableGifPicker),
      EnableIncomingWebhooks: flag(integrations.enableIncomingWebhooks),
      EnableInlineLatex: "true",
      EnableLastActiveTime: "true",
      EnableLatex: "true",
      EnableLinkPreviews: flag(switches.enableLinkPreviews),
      EnableManagedChannelCategories: "false",
      EnableMarketplace: "false",
      EnableMobileFileDownload: "true",
      EnableMobileFileUpload: "true",
      EnableOAuthServiceProvider: "false",
      EnableOutgoingWebhooks: flag(integrations.enableOutgoingWebhooks),
      EnablePermalinkPreviews: "true",
      EnablePostIconOverride: flag(integrations.enablePostIconOverride),
      EnablePostUsernameOverride: flag(integrations.enablePostUsernameOverride),
      EnablePublicLink: flag(files.enablePublicLink),
      EnableReliableWebSockets: "true",
      EnableSVGs: "false",
      EnableThemeSelection: "true",
      EnableTimedDND: "true",
      EnableTutorial: "false",
      // Mattermost's default: a new admin of a server without teams is walked through naming the organization and
      // creating its team (/preparing-workspace, system/onboarding/complete).
      EnableOnboardingFlow: "true",
      EnableUserAccessTokens: flag(integrations.enableUserAccessTokens),
      EnableUserDeactivation: "false",
      EnableUserStatuses: "true",
      EnableUserTypingMessages: "true",
      // Unlicensed Mattermost reports "true" after login (only a license may turn it off), and nothing before.
      ExperimentalEnableAuthenticationTransfer: "true",
      ExperimentalEnableAutomaticReplies: "false",
      ExperimentalEnableDefaultChannelLeaveJoinMessages: flag(switches.defaultChannelLeaveJoinMessages),
      ExperimentalEnablePostMetadata: "true",
      ExperimentalEnableWatermark: "false",
      ExperimentalGroupUnreadChannels: "disabled",
      ExperimentalNormalizeMarkdownLinks: "false",
      ExperimentalPrimaryTeam: "",
      ExperimentalSharedChannels: "false",
      ExperimentalTownSquareIsReadOnly: "false",
      ExperimentalViewArchivedChannels: "true",
      ExtendSessionLengthWithActivity: "false",
      ExperimentalTimezone: "true",
      CWSURL: "",
      CWSMock: "false",
      CustomUrlSchemes: "",
      DisableAppBar: "false",
      EnableClientPerformanceDebugging: "false",
      EnableMetrics: "false",
      EnablePreviewFeatures: "false",
      EnablePreviewModeBanner: "false",
      EnableTesting: "false",
      GoogleDeveloperKey: "",
      HasImageProxy: "false",
      HideGuestTags: "false",
      LdapFirstNameAttributeSet: "false",
      LdapLastNameAttributeSet: "false",
      LdapNicknameAttributeSet: "false",
      LdapPictureAttributeSet: "false",
      LdapPositionAttributeSet: "false",
      LockTeammateNameDisplay: flag(names.lockTeammateNameDisplay),
      // Computed, not configured (ClientConfigWithComputed): when this installation began, in milliseconds.
      InstallationDate: String(installation.installedAt),
      IsDefaultMarketplace: "true",
      ManagedResourcePaths: "",
      MaxFileSize: String(files.maxFileSize),
      MaxMarkdownNodes: "0",
      MaxNotificationsPerChannel: "1000",
      MaxPostSize: "16383",
      MinimumHashtagLength: "3",
      MobileEphemeralModeAutoCacheCleanupDays: "0",
      MobileEphemeralModeDisconnectionTimeoutSeconds: "0",
      MobileEphemeralModeEnabled: "false",
      MobileEphemeralModeOfflinePersistenceTimerHours: "0",
      PersistentNotificationIntervalMinutes: "5",
      PersistentNotificationMaxCount: "6",
      PersistentNotificationMaxRecipients: "5",
      PluginsEnabled: "false",
      PostAcknowledgements: "true",
      PostEditTimeLimit: "-1",
      PostPriority: flag(switches.postPriority),
      RequireEmailVerification: "false",
      RestrictDMAndGMAutotranslation: "false",
      RestrictDirectMessage: "any",
      SamlFirstNameAttributeSet: "false",
      SamlLastNameAttributeSet: "false",
      SamlNicknameAttributeSet: "false",
      SamlPositionAttributeSet: "false",
      RunJobs: "true",
      ScheduledPosts: "true",
      SchemaVersion: String(installation.schemaVersion),
      SendEmailNotifications: flag(mail),
      SendPushNotifications: flag(push && runtime.sendPushNotifications),
      ShowEmailAddress: "false",
      ShowFullName: "true",
      SQLDriverName: "postgres",
      TeammateNameDisplay: names.teammateNameDisplay,
      TimeBetweenUserTypingUpdatesMilliseconds: "5000",
      UniqueEmojiReactionLimitPerPost: "50",
      UpgradedFromTE: "false",
      UsersStatusAndProfileFetchingPollIntervalMilliseconds: "3000"
    }
  })

/**
 * GET /license/client?format=old (and trial-license/prev) for an unlicensed server, exactly as Mattermost's
 * GetClientLicense(nil): `IsLicensed` alone. No seat fields: the web app compares `Users` with the user count and
 * would warn admins that an absent licence's "0 seats" are exceeded.
 */
export const clientLicense = (): Record<string, string> => ({ IsLicensed: "false" })
