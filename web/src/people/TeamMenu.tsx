import type { Team } from "@mattermost/types/teams"
import { link } from "../app/router.ts"
import { me, teams } from "../app/state.ts"
import { navigate } from "../app/router.ts"
import { openModal } from "../shell/modal.ts"
import { Icon } from "../ui/Icon.tsx"
import { MenuButton } from "../ui/Menu.tsx"
import { allowedKinds, loadRolePermissions } from "../integrations/access.ts"
import { useEffect } from "preact/hooks"
import { isTeamAdmin, teamUnreads } from "./teams.ts"

/** The team's name at the top of the sidebar opens the team menu: people, other teams, leaving. */
export const TeamMenu = ({ team }: { team: Team }) => {
  // The roles' permissions decide whether the menu offers Integrations (asked once per new role name).
  useEffect(() => void loadRolePermissions(team.id), [team.id])
  const integrations = allowedKinds(team.id)
  return (
  <div class="team-name">
    <MenuButton label={`${team.display_name} team menu`} buttonClass="team-button" items={() => [
      { label: "Invite people", onSelect: () => openModal({ kind: "invite" }) },
      { label: "View members", onSelect: () => openModal({ kind: "team-members" }) },
      integrations.length > 0 && { label: "Integrations", onSelect: () => navigate(`/${team.name}/integrations/${integrations[0]}`) },
      "-",
      { label: "Join another team", onSelect: () => openModal({ kind: "join-team" }) },
      { label: "Create a team", onSelect: () => navigate("/create_team") },
      "-",
      { label: "Leave team", danger: true, onSelect: () => openModal({ kind: "leave-team" }) }
    ]}>
      <strong class="label">{team.display_name}</strong> <Icon name="chevron" />
    </MenuButton>
    {isTeamAdmin(team.id) && <span class="sr-only">, you administer this team</span>}
    <span class="muted small" aria-hidden="true">@{me.value?.username}</span>
  </div>
  )
}

/**
 * The team switcher: a link per team with its initials, named in full with what is unread there ("Design, 2
 * mentions"), and a badge (mentions) or dot (unread) on teams other than the open one.
 */
export const TeamSwitcher = ({ teamName }: { teamName: string }) => (
  <nav class="teams" aria-label="Teams">
    {teams.value.map((t) => {
      const u = t.name === teamName ? undefined : teamUnreads.value[t.id]
      const mentions = u?.mention_count ?? 0
      const unread = (u?.msg_count ?? 0) > 0
      const name = `${t.display_name}${mentions ? `, ${mentions} mention${mentions > 1 ? "s" : ""}` : unread ? ", unread" : ""}`
      return (
        <a key={t.id} href={`/${t.name}/channels/town-square`} onClick={link(`/${t.name}/channels/town-square`)} aria-current={t.name === teamName ? "page" : undefined}
          title={t.display_name} class={unread ? "unread" : undefined}>
          <span aria-hidden="true">{t.display_name.slice(0, 2)}</span><span class="sr-only">{name}</span>
          {mentions > 0 ? <span class="badge" aria-hidden="true" data-count={mentions} /> : unread ? <span class="dot" aria-hidden="true" /> : null}
        </a>
      )
    })}
    <button type="button" class="add-team" aria-label="Join or create a team" title="Join or create a team" onClick={() => openModal({ kind: "join-team" })}><Icon name="plus" /></button>
  </nav>
)
