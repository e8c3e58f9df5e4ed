import { signal } from "@preact/signals"
import type { UserProfile } from "@mattermost/types/users"
import { client } from "../app/api.ts"
import { put } from "../app/state.ts"

export const users = signal<Record<string, UserProfile>>({})
export const statuses = signal<Record<string, string>>({})

export const displayName = (user: UserProfile | undefined) => (user ? user.username : "someone")

const missingUsers = new Set<string>()
let userTimer: ReturnType<typeof setTimeout> | undefined
/** Profiles are fetched in one batch for every unknown id seen in the same tick. */
export const needUsers = (ids: Array<string>) => {
  for (const id of ids) if (id && !users.value[id]) missingUsers.add(id)
  if (missingUsers.size === 0 || userTimer) return
  userTimer = setTimeout(async () => {
    userTimer = undefined
    const ids = [...missingUsers]
    missingUsers.clear()
    try {
      put(users, await client.getProfilesByIds(ids))
      const found = await client.getStatusesByIds(ids)
      statuses.value = { ...statuses.value, ...Object.fromEntries(found.map((s) => [s.user_id, s.status])) }
    } catch {}
  }, 0)
}
