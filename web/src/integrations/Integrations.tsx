import { useSignal } from "@preact/signals"
import { lazy, Suspense } from "preact/compat"
import { useEffect, useState } from "preact/hooks"
import { link, navigate } from "../app/router.ts"
import { teams } from "../app/state.ts"
import { clearOutcome } from "../admin/state.ts"
import { allowedKinds, loadRolePermissions } from "./access.ts"

/**
 * The team's integrations pages, at Mattermost's paths: /{team}/integrations/incoming_webhooks, .../commands, and so
 * on (main.tsx loads this chunk on demand). Each kind shows only to people whose roles grant its permission in the
 * team and while the site's settings switch it on; the server refuses the same calls from anyone else.
 */
const IncomingWebhooks = lazy(() => import("./IncomingWebhooks.tsx"))
const Commands = lazy(() => import("./Commands.tsx"))
const OutgoingWebhooks = lazy(() => import("./OutgoingWebhooks.tsx"))
const Bots = lazy(() => import("./Bots.tsx"))

const LABELS = {
  incoming_webhooks: "Incoming webhooks",
  outgoing_webhooks: "Outgoing webhooks",
  commands: "Slash commands",
  bots: "Bot accounts"
} as const

export default function Integrations({ teamName, rest }: { teamName: string; rest: ReadonlyArray<string> }) {
  const team = teams.value.find((t) => t.name === teamName)!
  const [ready, setReady] = useState(false)
  const open = useSignal(false)
  useEffect(() => {
    void loadRolePermissions(team.id).then(() => setReady(true))
  }, [team.id])
  const kind = rest[0] ?? ""
  useEffect(() => {
    clearOutcome()
    open.value = false
  }, [kind])
  if (!ready) return <p class="muted center" role="status">Loading…</p>
  const kinds = allowedKinds(team.id)
  const back = `/${team.name}/channels/town-square`
  if (kinds.length === 0) {
    return (
      <main class="auth"><div class="card"><h1>Not allowed</h1>
        <p>You do not have permission to manage integrations in {team.display_name}. Ask a team or system admin.</p>
        <a href={back} onClick={link(back)}>Back to {team.display_name}</a></div></main>
    )
  }
  if (!kinds.includes(kind as never)) {
    queueMicrotask(() => navigate(`/${team.name}/integrations/${kinds[0]}`, true))
    return null
  }
  const page = kind === "incoming_webhooks" ? <IncomingWebhooks team={team} />
    : kind === "commands" ? <Commands team={team} />
    : kind === "outgoing_webhooks" ? <OutgoingWebhooks team={team} />
    : kind === "bots" ? <Bots />
    : <section><h2>{LABELS[kind as keyof typeof LABELS]}</h2><p>This page is not available in the web client yet; the API serves it.</p></section>
  return (
    <div class="admin">
      <nav aria-label="Integrations">
        <div class="row console-top">
          <h1>Integrations</h1>
          <button type="button" class="secondary console-menu" aria-expanded={open.value} aria-controls="integration-links"
            onClick={() => (open.value = !open.value)}>Menu</button>
        </div>
        <div id="integration-links" class={open.value ? "links open" : "links"}>
          <h2>{team.display_name}</h2>
          <ul>
            {kinds.map((k) => (
              <li key={k}>
                <a href={`/${team.name}/integrations/${k}`} onClick={link(`/${team.name}/integrations/${k}`)} aria-current={k === kind ? "page" : undefined}>{LABELS[k]}</a>
              </li>
            ))}
          </ul>
        </div>
        <a href={back} onClick={link(back)}>Back to chat</a>
      </nav>
      <main><Suspense fallback={<p class="muted" role="status">Loading…</p>}>{page}</Suspense></main>
    </div>
  )
}
