import { useSignal } from "@preact/signals"
import { lazy, Suspense } from "preact/compat"
import { useEffect } from "preact/hooks"
import { link, navigate, path } from "../app/router.ts"
import { SETTINGS_PAGES, type SettingsPage as Page } from "./settings.ts"
import { clearOutcome } from "./state.ts"

/**
 * The System Console (system admins only; main.tsx loads it on demand and refuses anyone else, as the server refuses
 * their API calls). Each page is a chunk of its own, loaded when opened, at Mattermost's console paths:
 * /admin_console/user_management/users, .../teams, .../channels, /admin_console/site_config/..., and so on.
 */
const Users = lazy(() => import("./Users.tsx"))
const UserDetail = lazy(() => import("./UserDetail.tsx"))
const Teams = lazy(() => import("./Teams.tsx"))
const TeamDetail = lazy(() => import("./TeamDetail.tsx"))
const Channels = lazy(() => import("./Channels.tsx"))
const ChannelDetail = lazy(() => import("./ChannelDetail.tsx"))
const SettingsPage = lazy(() => import("./SettingsPage.tsx"))
const Sso = lazy(() => import("./Sso.tsx"))
const Health = lazy(() => import("./Health.tsx"))
const Stats = lazy(() => import("./Stats.tsx"))
const DataPage = lazy(() => import("./Data.tsx"))

const page = (key: string) => SETTINGS_PAGES.find((p) => p.path === key) as Page

const GROUPS: ReadonlyArray<{ title: string; links: ReadonlyArray<[string, string]> }> = [
  { title: "User management", links: [["user_management/users", "Users"], ["user_management/teams", "Teams"], ["user_management/channels", "Channels"]] },
  {
    title: "Site configuration",
    links: [
      ["site_config/customization", "Customization"],
      ["site_config/users_and_teams", "Users and teams"],
      ["site_config/notifications", "Notifications"],
      ["site_config/posts", "Posts"],
      ["site_config/emoji", "Emoji"]
    ]
  },
  {
    title: "Authentication",
    links: [
      ["authentication/signup", "Signup"],
      ["authentication/password", "Password"],
      ["authentication/mfa", "Multi-factor authentication"],
      ["authentication/openid", "Single sign-on"]
    ]
  },
  {
    title: "Environment",
    links: [
      ["environment/web_server", "Web server"],
      ["environment/file_storage", "File storage"],
      ["environment/session_lengths", "Session lengths"],
      ["environment/rate_limiting", "Rate limiting"],
      ["environment/push_notification_server", "Push notifications"],
      ["environment/data", "Import and export"]
    ]
  },
  { title: "Integrations", links: [["integrations/integration_management", "Integration management"], ["integrations/bot_accounts", "Bot accounts"]] },
  { title: "Reporting", links: [["reporting/system_analytics", "Site statistics"], ["health", "Health"]] }
]

/** The console's first paths, kept so that old links and bookmarks still open the page. */
const MOVED: Record<string, string> = {
  "": "user_management/users",
  users: "user_management/users",
  teams: "user_management/teams",
  sso: "authentication/openid",
  push: "environment/push_notification_server"
}

const view = (rest: string) => {
  const [a, b, id] = rest.split("/")
  const key = `${a}/${b}`
  if (key === "user_management/users") return id ? <UserDetail id={id} /> : <Users />
  if (key === "user_management/teams") return id ? <TeamDetail id={id} /> : <Teams />
  if (key === "user_management/channels") return id ? <ChannelDetail id={id} /> : <Channels />
  if (key === "authentication/openid") return <Sso />
  if (key === "reporting/system_analytics") return <Stats />
  if (key === "environment/data") return <DataPage />
  if (rest === "health") return <Health />
  const settings = page(key)
  if (settings) return <SettingsPage key={key} page={settings} />
  return <section><h2>Page not found</h2><p>The console has no page at this address.</p></section>
}

export default function Admin() {
  const rest = path().replace(/^\/admin_console\/?/, "").replace(/\/$/, "")
  const open = useSignal(false)
  const moved = MOVED[rest]
  useEffect(() => {
    if (moved) navigate(`/admin_console/${moved}`, true)
  }, [moved])
  // A page's last message belongs to it: another page starts quiet.
  useEffect(() => {
    clearOutcome()
    open.value = false
  }, [rest.split("/").slice(0, 2).join("/")])
  if (moved) return null
  const current = rest.split("/").slice(0, 2).join("/")
  return (
    <div class="admin">
      <nav aria-label="System console">
        <div class="row console-top">
          <h1>System console</h1>
          <button type="button" class="secondary console-menu" aria-expanded={open.value} aria-controls="console-links"
            onClick={() => (open.value = !open.value)}>Menu</button>
        </div>
        <div id="console-links" class={open.value ? "links open" : "links"}>
          {GROUPS.map((g) => (
            <div key={g.title}>
              <h2>{g.title}</h2>
              <ul>
                {g.links.map(([to, label]) => (
                  <li key={to}>
                    <a href={`/admin_console/${to}`} onClick={link(`/admin_console/${to}`)} aria-current={to === current ? "page" : undefined}>{label}</a>
                  </li>
                ))}
              </ul>
            </div>
          ))}
        </div>
        <a href="/" onClick={link("/")}>Back to chat</a>
      </nav>
      <main><Suspense fallback={<p class="muted" role="status">Loading…</p>}>{view(rest)}</Suspense></main>
    </div>
  )
}
