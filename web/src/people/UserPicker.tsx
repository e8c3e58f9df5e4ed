import type { UserProfile } from "@mattermost/types/users"
import { useEffect, useState } from "preact/hooks"
import { me } from "../app/state.ts"
import { Avatar } from "./Avatar.tsx"
import { put } from "../app/state.ts"
import { users } from "./state.ts"
import { PersonName } from "./PersonName.tsx"

export const fullName = (u: UserProfile) => [u.first_name, u.last_name].filter(Boolean).join(" ")

/**
 * A search field over people (the lookup is the caller's: team members not in a channel, users not in a team, …) and
 * the people found, each with one action button named after them ("Add ann"). Typing waits 150 ms between lookups.
 */
export const UserPicker = ({ label, find, action, exclude = [], busy }: {
  label: string
  find: (term: string) => Promise<Array<UserProfile>>
  action: { readonly verb: string; readonly run: (u: UserProfile) => void }
  exclude?: Array<string>
  busy?: string | null
}) => {
  const [term, setTerm] = useState("")
  const [found, setFound] = useState<Array<UserProfile> | null>(null)
  useEffect(() => {
    let stale = false
    const t = setTimeout(() => {
      find(term.trim()).then((list) => {
        if (stale) return
        put(users, list)
        setFound(list.filter((u) => u.id !== me.value?.id && u.delete_at === 0))
      }, () => !stale && setFound([]))
    }, 150)
    return () => { stale = true; clearTimeout(t) }
  }, [term])
  const shown = (found ?? []).filter((u) => !exclude.includes(u.id)).slice(0, 30)
  return (
    <div class="picker-block">
      <label>{label}<input type="search" value={term} onInput={(e) => setTerm(e.currentTarget.value)} placeholder="Name or username" /></label>
      {found !== null && shown.length === 0 && <p class="muted">Nobody found</p>}
      <ul class="list people">
        {shown.map((u) => (
          <li key={u.id}>
            <span class="who"><Avatar userId={u.id} size={24} /> <PersonName user={u} /></span>
            <button type="button" class="secondary" aria-label={`${action.verb} ${u.username}`} disabled={busy === u.id} onClick={() => action.run(u)}>{action.verb}</button>
          </li>
        ))}
      </ul>
    </div>
  )
}
