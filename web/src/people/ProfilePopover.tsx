import { client } from "../app/api.ts"
import { navigate } from "../app/router.ts"
import { currentChannelId, me, teams } from "../app/state.ts"
import { channels, refreshChannels } from "../channels/state.ts"
import { profile } from "../shell/panels.ts"
import { useFocus } from "../ui/focus.ts"
import { Avatar } from "./Avatar.tsx"
import { customStatus } from "./customStatus.ts"
import { statuses, users } from "./state.ts"

export const ProfilePopover = () => {
  const p = profile.value
  if (!p) return null
  const user = users.value[p.userId]
  const close = useFocus<HTMLButtonElement>()
  const openDm = async () => {
    profile.value = null
    const channel = await client.createDirectChannel([me.value!.id, p.userId])
    await refreshChannels()
    const team = teams.value.find((t) => t.id === channels.value[currentChannelId.value]?.team_id) ?? teams.value[0]
    if (team && user) navigate(`/${team.name}/messages/@${user.username}`)
    void channel
  }
  return (
    <div class="popover" role="dialog" aria-label={`Profile of ${user?.username ?? ""}`} style={{ left: `${p.x}px`, top: `${p.y}px` }}
      onKeyDown={(e) => e.key === "Escape" && (profile.value = null)}>
      <Avatar userId={p.userId} size={56} />
      <p><strong>{[user?.first_name, user?.last_name].filter(Boolean).join(" ") || user?.username}</strong></p>
      <p class="muted">@{user?.username} · {statuses.value[p.userId] ?? "offline"}</p>
      {user && customStatus(user) && <p>{customStatus(user)}</p>}
      {user?.position && <p>{user.position}</p>}
      {p.userId !== me.value?.id && <button type="button" onClick={() => void openDm()}>Message</button>}
      <button type="button" class="secondary" ref={close} onClick={() => (profile.value = null)}>Close</button>
    </div>
  )
}
