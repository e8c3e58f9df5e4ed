import { useCallback } from "preact/hooks"
import { client, errorMessage } from "../app/api.ts"
import { navigate } from "../app/router.ts"
import { currentTeamId, me, teams } from "../app/state.ts"
import { customStatus } from "./customStatus.ts"
import { Avatar } from "./Avatar.tsx"
import { profile } from "../shell/panels.ts"
import { Floating } from "../ui/Floating.tsx"
import { useFocus } from "../ui/focus.ts"
import { LocalTime } from "./LocalTime.tsx"
import { displayName, statuses, users } from "./state.ts"
import { fullName } from "./UserPicker.tsx"

const STATUS: Record<string, string> = { online: "Online", away: "Away", dnd: "Do not disturb", offline: "Offline" }

/** A person's card next to where their name was clicked (in the page's top layer): name, status, local time, Message. */
export const ProfilePopover = () => {
  const p = profile.value
  return p ? <ProfileCard key={`${p.userId}`} p={p} /> : null
}

const ProfileCard = ({ p }: { p: { userId: string; anchor: HTMLElement } }) => {
  const close = useCallback(() => (profile.value = null), [])
  // Focus moves into the card when it opens (Escape or Close gives it back to the name that opened it).
  const message = useFocus<HTMLButtonElement>()
  const user = users.value[p.userId]
  const self = p.userId === me.value?.id
  const openDm = async () => {
    profile.value = null
    const team = teams.value.find((t) => t.id === currentTeamId.value) ?? teams.value[0]
    if (!team || !user) return
    try {
      await client.createDirectChannel([me.value!.id, p.userId])
      navigate(`/${team.name}/messages/@${user.username}`)
    } catch (e) {
      console.error(errorMessage(e))
    }
  }
  const status = statuses.value[p.userId] ?? "offline"
  return (
    <Floating anchor={p.anchor} placement="bottom-start" onClose={close} class="popover-layer" role="dialog" label={`Profile of ${user?.username ?? ""}`}>
      <div class="popover">
        <div class="profile-card">
          <Avatar userId={p.userId} size={56} />
          <div>
            <p><strong>{(user && displayName(user) !== user.username ? displayName(user) : user && fullName(user)) || user?.username}</strong></p>
            <p class="muted">@{user?.username}{user?.nickname ? ` · ${user.nickname}` : ""}</p>
            <p class="muted small">{STATUS[status] ?? status}</p>
          </div>
        </div>
        {user && customStatus(user) && <p>{customStatus(user)}</p>}
        {user?.position && <p>{user.position}</p>}
        {user && <LocalTime user={user} />}
        <div class="row">
          {!self && <button type="button" ref={message} onClick={() => void openDm()}>Message</button>}
          <button type="button" class="secondary" ref={self ? message : undefined} onClick={() => { close(); p.anchor.focus() }}>Close</button>
        </div>
      </div>
    </Floating>
  )
}
