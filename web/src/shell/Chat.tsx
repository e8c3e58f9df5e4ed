import { useEffect, useState } from "preact/hooks"
import { client, errorMessage } from "../app/api.ts"
import { link, location$ } from "../app/router.ts"
import { currentChannelId, me, teams } from "../app/state.ts"
import { ChannelView } from "../channels/ChannelView.tsx"
import { Sidebar } from "../channels/Sidebar.tsx"
import { channels, loadTeam, members, refreshChannels } from "../channels/state.ts"
import { ProfilePopover } from "../people/ProfilePopover.tsx"
import { needUsers, users } from "../people/state.ts"
import { ResultsPanel } from "../posts/ResultsPanel.tsx"
import { ThreadPanel } from "../threads/ThreadPanel.tsx"
import { ThreadsView } from "../threads/ThreadsView.tsx"
import { TeamMenu, TeamSwitcher } from "../people/TeamMenu.tsx"
import { refreshTeamUnreads } from "../people/teams.ts"
import { MESSAGE_BOX_ID } from "../ui/messageBox.ts"
import { Dialogs } from "./Dialogs.tsx"
import { drawerOpen } from "./drawer.ts"
import { installKeyboard } from "./keyboard.ts"
import { ModalHost } from "./ModalHost.tsx"
import { Header } from "./Header.tsx"
import { Notice } from "./Notice.tsx"
import { panel } from "./panels.ts"

/** /{team}/channels/{name} and /{team}/messages/@{username}. */
export const Chat = ({ teamName, channelName, dmUser, threadsView = false }: { teamName: string; channelName?: string; dmUser?: string; threadsView?: boolean }) => {
  const team = teams.value.find((t) => t.name === teamName)
  const [error, setError] = useState("")
  const [loaded, setLoaded] = useState("")

  useEffect(installKeyboard, [])
  // Any navigation (a channel picked in the drawer, a link, the switcher) shuts the phone drawer.
  useEffect(() => {
    drawerOpen.value = false
  }, [location$.value])

  useEffect(() => {
    if (!team) return
    setError("")
    loadTeam(team).then(() => setLoaded(team.id), (e) => setError(errorMessage(e)))
    // The team left behind was read meanwhile: the switcher's marks are asked for again.
    refreshTeamUnreads()
  }, [team?.id])

  // Resolve the address to a channel: known ones at once, others (a public channel by link, a new DM) by the API.
  const channel = Object.values(channels.value).find((c) => {
    if (dmUser) {
      const user = Object.values(users.value).find((u) => u.username === dmUser)
      return user !== undefined && c.type === "D" && c.name.split("__").includes(user.id) && (user.id === me.value?.id ? c.name === `${user.id}__${user.id}` : true)
    }
    // An archived channel opens read-only (from Browse channels' archived list), member or not.
    return c.name === channelName && (c.team_id === team?.id || c.team_id === "") && (members.value[c.id] || c.delete_at > 0)
  })
  useEffect(() => {
    if (!team || loaded !== team.id || channel || threadsView) return
    const open = async () => {
      if (dmUser) {
        const user = await client.getUserByUsername(dmUser)
        needUsers([user.id])
        await client.createDirectChannel([me.value!.id, user.id])
      } else {
        const c = await client.getChannelByName(team.id, channelName!, true)
        if (c.delete_at > 0) {
          channels.value = { ...channels.value, [c.id]: c }
          return
        }
        await client.addToChannel(me.value!.id, c.id)
      }
      await refreshChannels()
    }
    open().catch((e) => setError(errorMessage(e, "This channel could not be opened")))
  }, [team?.id, loaded, channelName, dmUser, !!channel])

  useEffect(() => {
    currentChannelId.value = channel?.id ?? ""
  }, [channel?.id])

  if (!team) {
    return (
      <main class="auth"><div class="card"><h1>Team not found</h1><p>You are not a member of “{teamName}”.</p>
        <a href="/" onClick={link("/")}>Go to your teams</a></div></main>
    )
  }
  const p = panel.value
  return (
    <div class={`layout${p ? " with-panel" : ""}${drawerOpen.value ? " drawer-open" : ""}`}>
      {/* The first stop of the Tab key: straight to the message box, past the teams, the sidebar and the posts. */}
      {!threadsView && channel && <a class="skip-link" href={`#${MESSAGE_BOX_ID}`} onClick={(e) => { e.preventDefault(); document.getElementById(MESSAGE_BOX_ID)?.focus() }}>Skip to message box</a>}
      <Header teamName={teamName} />
      <div class="drawer" id="drawer" onKeyDown={(e) => {
        if (e.key === "Escape" && drawerOpen.value) {
          drawerOpen.value = false
          document.querySelector<HTMLElement>(".drawer-button")?.focus()
        }
      }}>
        <TeamMenu team={team} />
        <div class="drawer-teams"><TeamSwitcher teamName={teamName} /></div>
        <Sidebar teamName={teamName} threadsOpen={threadsView} />
      </div>
      <div class="drawer-backdrop" onClick={() => (drawerOpen.value = false)} />
      {threadsView ? <ThreadsView teamId={team.id} /> : channel ? <ChannelView key={channel.id} channel={channel} /> : (
        <main class="channel"><p class={error ? "alert" : "muted"} role={error ? "alert" : undefined}>{error || "Loading…"}</p></main>
      )}
      {p?.kind === "thread" && <ThreadPanel rootId={p.rootId} />}
      {p?.kind === "search" && <ResultsPanel title={`Search results for “${p.terms}”`} terms={p.terms} load={(page) => client.searchPostsWithParams(team.id, { terms: p.terms, is_or_search: false, page, per_page: 20, time_zone_offset: -new Date().getTimezoneOffset() * 60 } as any) as any} />}
      {p?.kind === "saved" && <ResultsPanel title="Saved messages" load={async (page) => {
        // The saved list's has_next is always false (as Mattermost's): a full page says more may follow.
        const r = await client.getFlaggedPosts(me.value!.id, "", "", page, 60)
        return { ...r, has_next: r.order.length >= 60 }
      }} />}
      {p?.kind === "pinned" && <ResultsPanel title="Pinned messages" load={async () => ({ ...(await client.getPinnedPosts(p.channelId)), has_next: false })} />}
      <ProfilePopover />
      <Notice />
      <Dialogs team={team} />
      <ModalHost team={team} />
    </div>
  )
}
