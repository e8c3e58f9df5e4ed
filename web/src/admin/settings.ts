/**
 * The console's settings pages: each setting of GET /api/v4/config the server honours, grouped and named as
 * Mattermost's System Console groups them, with help text and the rules the server validates with
 * (src/system/ConfigUpdate.ts). Whether a setting can be changed is the server's answer
 * (GET /api/v1/admin/config/sources), not this list's: a setting is editable, fixed by an environment variable
 * (shown with it), or fixed on this server.
 */
export type Kind = "text" | "textarea" | "number" | "bool" | "url" | "select"

export interface Setting {
  readonly key: string
  readonly label: string
  readonly help: string
  readonly kind: Kind
  readonly required?: boolean
  readonly min?: number
  readonly max?: number
  readonly maxLength?: number
  /** Shown in this unit, stored in the server's (e.g. megabytes shown, bytes stored). */
  readonly scale?: { readonly unit: string; readonly factor: number }
  /** The values a select offers, each with its label. */
  readonly options?: ReadonlyArray<readonly [string, string]>
}

export interface SettingsPage {
  readonly path: string
  readonly title: string
  readonly intro: string
  readonly settings: ReadonlyArray<Setting>
  /** Something of the page beyond its settings (the test email, push credentials). */
  readonly extra?: "email" | "push"
}

const bool = (key: string, label: string, help: string): Setting => ({ key, label, help, kind: "bool" })
const whole = (key: string, label: string, help: string, min = 1, max?: number): Setting => ({ key, label, help, kind: "number", required: true, min, max })
const text = (key: string, label: string, help: string): Setting => ({ key, label, help, kind: "text" })

export const SETTINGS_PAGES: ReadonlyArray<SettingsPage> = [
  {
    path: "site_config/customization",
    title: "Customization",
    intro: "How the site names and presents itself.",
    settings: [
      { key: "TeamSettings.SiteName", label: "Site name", help: "Shown in the browser tab, on the sign-in page, in emails and in the apps. 1 to 30 characters.", kind: "text", required: true, maxLength: 30 },
      { key: "TeamSettings.CustomDescriptionText", label: "Site description", help: "Text under the site name on the sign-in page (Markdown). At most 4000 characters.", kind: "textarea", maxLength: 4000 },
      bool("TeamSettings.EnableCustomBrand", "Enable custom branding", "Shows the custom brand text (and image) on the sign-in page."),
      { key: "TeamSettings.CustomBrandText", label: "Custom brand text", help: "Shown on the sign-in page beside the brand image when custom branding is on (Markdown). At most 4000 characters.", kind: "textarea", maxLength: 4000 }
    ]
  },
  {
    path: "site_config/users_and_teams",
    title: "Users and teams",
    intro: "Limits on teams and how people appear to each other.",
    settings: [
      whole("TeamSettings.MaxUsersPerTeam", "Max users per team", "Active members a team may hold; joining past it is refused. Deactivated accounts do not count."),
      whole("TeamSettings.MaxChannelsPerTeam", "Max channels per team", "Public and private channels a team may hold, archived ones aside; creating one past it is refused."),
      bool("TeamSettings.EnableTeamCreation", "Enable team creation", "When off, only system admins can create teams."),
      text("TeamSettings.RestrictDirectMessage", "Enable users to open direct message channels with", "Who can be messaged directly: any user of the server."),
      {
        key: "TeamSettings.TeammateNameDisplay", label: "Teammate name display", kind: "select",
        help: "How people's names are shown in posts, the channel list and member lists, unless someone picks their own in Settings > Display.",
        options: [["username", "Show username"], ["nickname_full_name", "Show nickname if one exists, otherwise first and last name"], ["full_name", "Show first and last name"]]
      },
      bool("TeamSettings.LockTeammateNameDisplay", "Lock teammate name display for all users", "When on, people cannot choose another name display in their settings."),
      bool("TeamSettings.EnableCustomUserStatuses", "Enable custom statuses", "People can set a status message with an emoji."),
      bool("TeamSettings.EnableLastActiveTime", "Enable last active time", "Profiles show when someone was last online.")
    ]
  },
  {
    path: "authentication/signup",
    title: "Signup",
    intro: "Who can create an account and join teams.",
    settings: [
      bool("TeamSettings.EnableUserCreation", "Enable account creation", "When off, only system admins can create accounts (Users > Create user)."),
      bool("TeamSettings.EnableOpenServer", "Enable open server", "When on, anyone can sign up without an invitation; when off, sign-up needs a team's invite link."),
      text("TeamSettings.RestrictCreationToDomains", "Restrict new system and team members to specified email domains", "Comma-separated domains new accounts' email addresses must belong to (empty: any). Per team: Teams > a team > Allowed domains."),
      bool("ServiceSettings.EnableEmailInvitations", "Enable email invitations", "Team members can invite people by email."),
      bool("EmailSettings.EnableSignUpWithEmail", "Enable account creation with email", "Sign-up with an email address and password; off while single sign-on is required."),
      bool("EmailSettings.EnableSignInWithEmail", "Enable sign-in with email", "Sign-in with an email address and password; off while single sign-on is required."),
      bool("EmailSettings.EnableSignInWithUsername", "Enable sign-in with username", "Sign-in with a username and password; off while single sign-on is required.")
    ]
  },
  {
    path: "authentication/password",
    title: "Password",
    intro: "Rules for passwords and failed sign-ins. Passwords that are among the most common, contain the username or email, or repeat one character are always refused.",
    settings: [
      whole("PasswordSettings.MinimumLength", "Minimum password length", "The fewest characters a password may have.", 5, 72),
      bool("PasswordSettings.Lowercase", "At least one lowercase letter", "Passwords must contain a lowercase letter."),
      bool("PasswordSettings.Uppercase", "At least one uppercase letter", "Passwords must contain an uppercase letter."),
      bool("PasswordSettings.Number", "At least one number", "Passwords must contain a digit."),
      bool("PasswordSettings.Symbol", "At least one symbol", "Passwords must contain a symbol."),
      whole("ServiceSettings.MaximumLoginAttempts", "Maximum login attempts", "Wrong passwords or second-factor codes after which an account is locked until an admin sets its password or the user resets it by email."),
      bool("PasswordSettings.EnableForgotLink", "Enable forgot password link", "Shows \"Forgot your password?\" on the sign-in page.")
    ]
  },
  {
    path: "authentication/mfa",
    title: "Multi-factor authentication",
    intro: "A second factor (an authenticator app's code) at sign-in. An admin can reset a user's second factor in Users.",
    settings: [
      bool("ServiceSettings.EnableMultifactorAuthentication", "Enable multi-factor authentication", "People can turn on a second factor in their account's security settings."),
      bool("ServiceSettings.EnforceMultifactorAuthentication", "Enforce multi-factor authentication", "When on, everyone signing in with a password must set up a second factor first.")
    ]
  },
  {
    path: "environment/session_lengths",
    title: "Session lengths",
    intro: "How long a sign-in lasts before it must be repeated. An admin can end a user's sessions at any time in Users.",
    settings: [
      whole("ServiceSettings.SessionLengthWebInHours", "Session length for web and desktop (hours)", "Hours before a browser or desktop sign-in expires."),
      whole("ServiceSettings.SessionLengthMobileInHours", "Session length for mobile apps (hours)", "Hours before a phone's sign-in expires."),
      whole("ServiceSettings.SessionLengthSSOInHours", "Session length for single sign-on (hours)", "Hours before a sign-in through an identity provider expires."),
      { key: "ServiceSettings.SessionIdleTimeoutInMinutes", label: "Session idle timeout (minutes)", help: "A browser sign-in unused this long ends (apps and access tokens are spared). 0: never; otherwise at least 5.", kind: "number", required: true, min: 0 },
      whole("ServiceSettings.SessionCacheInMinutes", "Session cache (minutes)", "How long a session is kept in memory between checks.")
    ]
  },
  {
    path: "site_config/notifications",
    title: "Notifications",
    intro: "Email and push notifications, and how emails are batched.",
    extra: "email",
    settings: [
      bool("EmailSettings.SendEmailNotifications", "Enable email notifications", "Emails for mentions and direct messages; needs an SMTP server."),
      bool("EmailSettings.EnableEmailBatching", "Enable email batching", "Notification emails are gathered and sent together, at each person's chosen interval."),
      whole("EmailSettings.EmailBatchingInterval", "Email batching check (seconds)", "How often waiting notification emails are looked at."),
      text("EmailSettings.EmailNotificationContentsType", "Email notification contents", "\"full\": the message is in the email."),
      {
        key: "EmailSettings.PushNotificationContents", label: "Push notification contents", kind: "select",
        help: "What a push notification shows on a phone's lock screen and what passes through the push services.",
        options: [
          ["generic_no_channel", "Generic description with only sender name"],
          ["generic", "Generic description with sender and channel names"],
          ["full", "Full message contents sent in the notification payload"],
          ["id_loaded", "Full message contents fetched from the server on receipt"]
        ]
      },
      whole("TeamSettings.MaxNotificationsPerChannel", "Max notifications per channel", "Above this many members, @all, @channel and @here do not notify."),
      bool("TeamSettings.EnableConfirmNotificationsToChannel", "Show @channel, @all and @here confirmation", "Asks before a post notifies a large channel.")
    ]
  },
  {
    path: "environment/file_storage",
    title: "File storage",
    intro: "Where files are kept and how large they may be.",
    settings: [
      { key: "FileSettings.MaxFileSize", label: "Maximum file size (MB)", help: "The largest file people can attach, in megabytes.", kind: "number", required: true, min: 1, max: 1048576, scale: { unit: "MB", factor: 1048576 } },
      bool("FileSettings.EnablePublicLink", "Enable public file links", "People can share a link to a file that works without signing in."),
      bool("FileSettings.EnableFileAttachments", "Allow file sharing", "People can attach files to posts."),
      text("FileSettings.DriverName", "File storage system", "\"local\": files under the data directory; \"amazons3\": an S3-compatible store."),
      text("FileSettings.Directory", "Local storage directory", "Where files are written when stored locally."),
      whole("FileSettings.MaxImageResolution", "Maximum image resolution (pixels)", "Larger images are not previewed.")
    ]
  },
  {
    path: "site_config/posts",
    title: "Posts",
    intro: "What posts can carry and how links in them are shown.",
    settings: [
      bool("ServiceSettings.EnableLinkPreviews", "Enable website link previews", "The first link of a post is shown with its site's title, description and image (fetched by the server)."),
      bool("ServiceSettings.PostPriority", "Message priority", "Posts can be marked important or urgent."),
      bool("ServiceSettings.EnablePermalinkPreviews", "Enable message link previews", "A link to another post shows that post."),
      bool("ServiceSettings.EnableLatex", "Enable LaTeX rendering", "Code blocks marked latex are drawn as formulas."),
      { key: "ServiceSettings.PostEditTimeLimit", label: "Edit time limit (seconds)", help: "How long after posting a message can be edited; -1: always.", kind: "number", min: -1 }
    ]
  },
  {
    path: "site_config/emoji",
    title: "Emoji",
    intro: "Emoji in posts and reactions.",
    settings: [
      bool("ServiceSettings.EnableEmojiPicker", "Enable emoji picker", "People can pick emoji for posts and reactions."),
      bool("ServiceSettings.EnableCustomEmoji", "Enable custom emoji", "People can add their own emoji images."),
      bool("ServiceSettings.EnableGifPicker", "Enable GIF picker", "People can search and post GIFs.")
    ]
  },
  {
    path: "integrations/integration_management",
    title: "Integration management",
    intro: "Which integrations people can create. Turning one off stops the existing ones of that kind too.",
    settings: [
      bool("ServiceSettings.EnableIncomingWebhooks", "Enable incoming webhooks", "Other systems can post to channels through a webhook URL."),
      bool("ServiceSettings.EnableOutgoingWebhooks", "Enable outgoing webhooks", "Posts with trigger words are sent to other systems."),
      bool("ServiceSettings.EnableCommands", "Enable custom slash commands", "Slash commands that call other systems."),
      bool("ServiceSettings.EnablePostUsernameOverride", "Enable integrations to override usernames", "Webhooks and commands can post under another name."),
      bool("ServiceSettings.EnablePostIconOverride", "Enable integrations to override profile picture icons", "Webhooks and commands can post with another picture."),
      bool("ServiceSettings.EnableUserAccessTokens", "Enable personal access tokens", "People allowed to can create tokens to use the API as themselves."),
      bool("ServiceSettings.EnableOAuthServiceProvider", "Enable OAuth 2.0 service provider", "Other applications can sign people in with this server.")
    ]
  },
  {
    path: "integrations/bot_accounts",
    title: "Bot accounts",
    intro: "Accounts for integrations, owned by a person.",
    settings: [
      bool("ServiceSettings.EnableBotAccountCreation", "Enable bot account creation", "People allowed to can create bot accounts.")
    ]
  },
  {
    path: "environment/rate_limiting",
    title: "Rate limiting",
    intro: "Limits on how fast clients may sign in and call the server. Channel and team creation have their own limit (SERVICE_SECURITY_RATE_LIMIT_CREATE_BURST, SERVICE_SECURITY_RATE_LIMIT_CREATE_PER_MINUTE).",
    settings: [
      bool("RateLimitSettings.Enable", "Enable rate limiting", "Requests above the limits are answered 429 (Too many requests)."),
      whole("RateLimitSettings.PerSec", "Maximum queries per second", "Sign-in attempts per second from one address, on average."),
      whole("RateLimitSettings.MaxBurst", "Maximum burst size", "Sign-in attempts one address may make at once."),
      bool("RateLimitSettings.VaryByRemoteAddr", "Vary rate limit by remote address", "Each client address has its own limit.")
    ]
  },
  {
    path: "environment/web_server",
    title: "Web server",
    intro: "How the server is reached. These come from the environment: change the variable and restart.",
    settings: [
      { key: "ServiceSettings.SiteURL", label: "Site URL", help: "The address people and apps use to reach the server; links in emails and pushes start with it.", kind: "url" },
      text("ServiceSettings.ListenAddress", "Listen address", "The address and port the server listens on."),
      text("ServiceSettings.AllowCorsFrom", "Enable cross-origin requests from", "Other sites allowed to call the API from a browser."),
      text("ServiceSettings.WebserverMode", "Webserver mode", "Whether a Mattermost web app build is served (SERVICE_WEBAPP_DIR).")
    ]
  },
  {
    path: "environment/push_notification_server",
    title: "Push notification server",
    intro: "Push notifications reach phones through a push proxy or directly through Firebase and Apple's service.",
    extra: "push",
    settings: [
      bool("EmailSettings.SendPushNotifications", "Enable push notifications", "Sends mentions and direct messages to people's phones; needs a push proxy URL or credentials below."),
      { key: "EmailSettings.PushNotificationServer", label: "Push notification server", help: "A Mattermost push proxy's http(s) URL (empty: none).", kind: "url" }
    ]
  }
]

/** A setting's value in the config document ("Section.Setting"). */
export const valueAt = (doc: Record<string, any> | null, key: string) => {
  const [section, name] = key.split(".")
  return doc?.[section]?.[name]
}

/** The patch for PUT /config/patch: `{Section: {Setting: value}}`. */
export const patchOf = (changes: Record<string, unknown>) => {
  const patch: Record<string, Record<string, unknown>> = {}
  for (const [key, value] of Object.entries(changes)) {
    const [section, name] = key.split(".")
    patch[section] = { ...patch[section], [name]: value }
  }
  return patch
}
