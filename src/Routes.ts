import { HttpRouter } from "@effect/platform"
import * as Health from "./health/Routes.ts"
import * as AdminHealth from "./health/AdminHealthRoutes.ts"
import * as ConsoleReports from "./system/ConsoleReportRoutes.ts"
import * as Devices from "./devices/DeviceRoutes.ts"
import * as PushAdmin from "./push/AdminRoutes.ts"
import * as TestNotification from "./push/TestNotificationRoutes.ts"
import * as Calls from "./calls/CallRoutes.ts"
import * as Plugins from "./plugins/PluginRoutes.ts"
import * as Files from "./files/Routes.ts"
import * as Emoji from "./emoji/Routes.ts"
import * as Search from "./search/Routes.ts"
import * as Teams from "./teams/Routes.ts"
import * as Channels from "./channels/Routes.ts"
import * as Categories from "./categories/CategoryRoutes.ts"
import * as Accounts from "./users/AccountRoutes.ts"
import * as MailedLinks from "./recovery/MailedLinkRoutes.ts"
import * as TestMail from "./mail/TestMailRoutes.ts"
import * as Mfa from "./mfa/MfaRoutes.ts"
import * as Drafts from "./drafts/DraftRoutes.ts"
import * as Scheduled from "./scheduled/ScheduledPostRoutes.ts"
import * as Counts from "./counts/CountRoutes.ts"
import * as SystemRoles from "./system/RoleRoutes.ts"
import * as SystemSchemes from "./system/SchemeRoutes.ts"
import * as System from "./system/SystemRoutes.ts"
import * as Brand from "./system/BrandRoutes.ts"
import * as Onboarding from "./system/OnboardingRoutes.ts"
import * as Upgrade from "./system/UpgradeRoutes.ts"
import * as SiteUrl from "./system/SiteUrlRoutes.ts"
import * as Analytics from "./system/AnalyticsRoutes.ts"
import * as ConfigAdmin from "./system/ConfigRoutes.ts"
import * as ConfigSources from "./system/ConfigSourceRoutes.ts"
import * as Users from "./users/UserRoutes.ts"
import * as AdminUsers from "./users/AdminUserRoutes.ts"
import * as UserSessions from "./users/SessionRoutes.ts"
import * as AccessTokens from "./tokens/AccessTokenRoutes.ts"
import * as Bots from "./bots/BotRoutes.ts"
import * as IncomingHooks from "./webhooks/IncomingRoutes.ts"
import * as OutgoingHooks from "./webhooks/OutgoingRoutes.ts"
import * as PostActions from "./integrations/PostActionRoutes.ts"
import * as SlashCommands from "./commands/CommandRoutes.ts"
import * as Reminders from "./reminders/ReminderRoutes.ts"
import * as OpenGraph from "./links/OpenGraphRoutes.ts"
import * as ImageProxyRoutes from "./links/ImageProxyRoutes.ts"
import * as CustomStatus from "./users/CustomStatusRoutes.ts"
import * as ProfileImages from "./users/ProfileImageRoutes.ts"
import * as Preferences from "./preferences/PreferenceRoutes.ts"
import * as EmptyByDesign from "./compat/EmptyByDesign.ts"
import * as NotImplemented from "./compat/NotImplemented.ts"
import * as Posts from "./posts/Routes.ts"
import * as Threads from "./threads/Routes.ts"
import * as Reactions from "./reactions/Routes.ts"
import * as Realtime from "./realtime/Routes.ts"
import * as TypingOverHttp from "./realtime/TypingRoutes.ts"
import * as Statuses from "./status/Routes.ts"
import * as Sso from "./sso/Routes.ts"
import * as LoginPage from "./web/LoginPage.ts"
import * as WebApp from "./web/WebApp.ts"
import * as Imports from "./imports/ImportRoutes.ts"
import * as Exports from "./imports/ExportRoutes.ts"
import * as OpenApiDocument from "./openapi/Routes.ts"

/** Every route the service serves, one line per feature; the feature folder's Routes file lists its paths. */
export const served = HttpRouter.concatAll(
  Health.routes,
  Teams.routes,
  Channels.routes,
  Categories.routes,
  Accounts.routes,
  MailedLinks.routes,
  TestMail.routes,
  Mfa.routes,
  Drafts.routes,
  Scheduled.routes,
  Counts.routes,
  System.routes,
  Brand.routes,
  Onboarding.routes,
  Upgrade.routes,
  SiteUrl.routes,
  Analytics.routes,
  ConsoleReports.routes,
  AdminHealth.routes,
  ConfigAdmin.routes,
  ConfigSources.routes,
  SystemRoles.routes,
  SystemSchemes.routes,
  Users.routes,
  AdminUsers.routes,
  UserSessions.routes,
  AccessTokens.routes,
  Bots.routes,
  IncomingHooks.routes,
  OutgoingHooks.routes,
  PostActions.routes,
  SlashCommands.routes,
  Reminders.routes,
  OpenGraph.routes,
  ImageProxyRoutes.routes,
  CustomStatus.routes,
  ProfileImages.routes,
  Preferences.routes,
  Files.routes,
  Emoji.routes,
  Search.routes,
  Devices.routes,
  PushAdmin.routes,
  TestNotification.routes,
  Imports.routes,
  Exports.routes,
  OpenApiDocument.routes,
  Calls.routes,
  Plugins.routes,
  Posts.routes,
  Threads.routes,
  Reactions.routes,
  Realtime.routes,
  TypingOverHttp.routes,
  Statuses.routes,
  Sso.routes,
  LoginPage.routes,
  WebApp.routes,
  EmptyByDesign.routes
)

/** The served routes, then a 501 for each Mattermost route they lack and Mattermost's 404 for the rest of /api/v4. */
export const routes = NotImplemented.withFallbacks(served)
