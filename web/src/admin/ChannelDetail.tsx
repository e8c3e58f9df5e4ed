import type { Channel } from "@mattermost/types/channels"
import type { Team } from "@mattermost/types/teams"
import { useState } from "preact/hooks"
import { link } from "../app/router.ts"
import { useTeams } from "./Channels.tsx"
import { Members } from "./Members.tsx"
import { act, api, consolePath, useLoad } from "./state.ts"
import { Outcome, useConfirm } from "./ui.tsx"


/**
 * A channel's page: its team, privacy and state; convert between public and private, archive and unarchive, move
 * to another team (POST /channels/{id}/move; members outside that team block it unless they are removed), each
 * after a confirmation; its members and their roles.
 */
export default function ChannelDetail({ id }: { id: string }) {
  const channel = useLoad(() => api<Channel>("GET", `/api/v4/channels/${id}`), [id])
  const team = useLoad(() => channel.data ? api<Team>("GET", `/api/v4/teams/${channel.data.team_id}`) : Promise.resolve(null), [channel.data?.team_id])
  const teams = useTeams()
  const confirm = useConfirm(() => reload())
  const [target, setTarget] = useState("")
  const [force, setForce] = useState(false)
  const c = channel.data
  if (!c) return <section><h2>Channel</h2><Outcome error={channel.error} /></section>
  const isPrivate = c.type === "P"
  const others = (teams.data ?? []).filter((t) => t.id !== c.team_id && !t.delete_at)
  const targetTeam = others.find((t) => t.id === target)
  const reload = () => {
    setTarget("")
    return channel.reload()
  }
  return (
    <section aria-labelledby="channel-title">
      <p><a href={consolePath("user_management/channels")} onClick={link(consolePath("user_management/channels"))}>Channels</a> ›</p>
      <h2 id="channel-title">{c.display_name}</h2>
      <Outcome />
      <dl class="facts">
        <dt>Team</dt><dd>{team.data?.display_name ?? "…"}</dd>
        <dt>URL name</dt><dd>~{c.name}</dd>
        <dt>Privacy</dt><dd>{isPrivate ? "Private" : "Public"}</dd>
        <dt>State</dt><dd>{c.delete_at ? "Archived" : "Active"}</dd>
      </dl>
      <div class="row actions-bar" role="group" aria-label="Channel actions">
        <button type="button" class="danger" disabled={c.name === "town-square" && !isPrivate} onClick={() => confirm.ask({
          title: `Make ${c.display_name} ${isPrivate ? "public" : "private"}`, action: isPrivate ? "Make public" : "Make private",
          done: `${c.display_name} is now ${isPrivate ? "public" : "private"}`,
          text: isPrivate
            ? `Everyone in the team will be able to find and join ${c.display_name}, and read its history.`
            : `Only current members will see ${c.display_name}; others must be added.`,
          run: () => api("PUT", `/api/v4/channels/${id}/privacy`, { privacy: isPrivate ? "O" : "P" })
        })}>{isPrivate ? "Convert to public" : "Convert to private"}</button>
        {c.delete_at
          ? <button type="button" class="secondary" onClick={() => void act(() => api("POST", `/api/v4/channels/${id}/restore`), `${c.display_name} unarchived`, reload)}>Unarchive channel</button>
          : <button type="button" class="danger" disabled={c.name === "town-square"} onClick={() => confirm.ask({
              title: `Archive ${c.display_name}`, action: "Archive channel", done: `${c.display_name} archived`,
              text: `${c.display_name} becomes read-only; its messages are kept and it can be unarchived.`,
              run: () => api("DELETE", `/api/v4/channels/${id}`)
            })}>Archive channel</button>}
      </div>

      {c.name !== "town-square" && !c.delete_at && (
        <form class="grid-form" aria-labelledby="move-title" onSubmit={(e) => {
          e.preventDefault()
          if (!targetTeam) return
          confirm.ask({
            title: `Move ${c.display_name} to ${targetTeam.display_name}`, action: "Move channel", done: `${c.display_name} moved to ${targetTeam.display_name}`,
            text: force
              ? `${c.display_name} and its messages will belong to ${targetTeam.display_name}; members who are not in that team will be removed from the channel.`
              : `${c.display_name} and its messages will belong to ${targetTeam.display_name}. Every member must already be in that team.`,
            run: () => api("POST", `/api/v4/channels/${id}/move`, { team_id: targetTeam.id, force })
          })
        }}>
          <h3 id="move-title">Move to another team</h3>
          <label for="move-target">Target team</label>
          <select id="move-target" value={target} required onChange={(e) => setTarget(e.currentTarget.value)}>
            <option value="">Choose a team</option>
            {others.map((t) => <option key={t.id} value={t.id}>{t.display_name}</option>)}
          </select>
          <label class="check"><input type="checkbox" checked={force} onChange={(e) => setForce(e.currentTarget.checked)} /> Remove members who are not in the target team</label>
          <button type="submit" class="secondary">Move channel</button>
        </form>
      )}

      <Members base={`/api/v4/channels/${id}`} scope="channel" name={c.display_name} />
      {confirm.dialog}
    </section>
  )
}
