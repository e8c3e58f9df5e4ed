import type { UserProfile } from "@mattermost/types/users"
import { displayName } from "./state.ts"

const fullName = (u: UserProfile) => [u.first_name, u.last_name].filter(Boolean).join(" ")

/**
 * A person in a list (members, pickers): the name the Teammate Name Display setting chooses first, with the username
 * beside it; when that name is the username, the full name is what goes beside it.
 */
export const PersonName = ({ user, fallback = "" }: { user: UserProfile | undefined; fallback?: string }) => {
  if (!user) return <strong>{fallback}</strong>
  const shown = displayName(user)
  return shown === user.username
    ? <><strong>@{user.username}</strong> <span class="muted">{fullName(user)}</span></>
    : <><strong>{shown}</strong> <span class="muted">@{user.username}</span></>
}
