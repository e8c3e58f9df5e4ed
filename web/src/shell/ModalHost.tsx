import "./shell.css"
import type { Team } from "@mattermost/types/teams"
import { lazy, Suspense } from "preact/compat"
import { modal } from "./modal.ts"

// Each dialog is its own chunk, out of the first load; they are fetched while the page is idle, so that Ctrl+K or a
// menu item opens its dialog at once.
const load = {
  channel: () => import("../channels/ChannelDialogs.tsx"),
  browse: () => import("../channels/BrowseChannels.tsx"),
  create: () => import("../channels/CreateChannel.tsx"),
  people: () => import("../people/PeopleDialogs.tsx"),
  switcher: () => import("./Switcher.tsx"),
  shortcuts: () => import("./Shortcuts.tsx")
}
const ChannelDialogs = lazy(load.channel)
const BrowseChannels = lazy(load.browse)
const CreateChannel = lazy(load.create)
const PeopleDialogs = lazy(load.people)
const Switcher = lazy(load.switcher)
const Shortcuts = lazy(load.shortcuts)

if (typeof requestIdleCallback === "function") {
  requestIdleCallback(() => { for (const f of Object.values(load)) void f().catch(() => undefined) }, { timeout: 5000 })
}

export const ModalHost = ({ team }: { team: Team }) => {
  const m = modal.value
  if (!m) return null
  const body = m.kind === "browse" ? <BrowseChannels team={team} />
    : m.kind === "create-channel" ? <CreateChannel team={team} />
    : m.kind === "switcher" ? <Switcher team={team} />
    : m.kind === "shortcuts" ? <Shortcuts />
    : m.kind === "invite" || m.kind === "team-members" || m.kind === "join-team" || m.kind === "leave-team" ? <PeopleDialogs m={m} team={team} />
    : <ChannelDialogs m={m} team={team} />
  // Keyed by kind: moving from one dialog to another (info → edit header) opens a fresh one.
  return <Suspense fallback={null}><div key={m.kind} style={{ display: "contents" }}>{body}</div></Suspense>
}
