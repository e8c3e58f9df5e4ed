import { signal } from "@preact/signals"
import type { UserProfile } from "@mattermost/types/users"
import { client } from "../app/api.ts"
import { nameFormat } from "../account/preferences.ts"
import { config, put } from "../app/state.ts"

export const users = signal<Record<string, UserProfile>>({})
export const statuses = signal<Record<string, string>>({})

/**
 * The name format in force: the person's own name_format preference, else the server's TeammateNameDisplay (which
 * wins when the administrator locked it), else the username (Mattermost's rule).
 */
export const teammateNameDisplay = () => {
  const server = config.value.TeammateNameDisplay || "username"
  if (config.value.LockTeammateNameDisplay === "true") return server
  return nameFormat.value || server
}

const fullNameOf = (user: UserProfile) => [user.first_name, user.last_name].map((s) => (s ?? "").trim()).filter(Boolean).join(" ")

/**
 * A person's name as the Teammate Name Display setting says (Mattermost's displayUsername): the nickname or the
 * full name when chosen and present, the username otherwise. Read in a render, it re-renders when the setting changes.
 */
export const displayName = (user: UserProfile | undefined, fallback = "someone") => {
  if (!user) return fallback
  const format = teammateNameDisplay()
  if (format === "nickname_full_name") return (user.nickname ?? "").trim() || fullNameOf(user) || user.username
  if (format === "full_name") return fullNameOf(user) || user.username
  return user.username
}

/**
 * What the mention autocomplete shows beside @username: the chosen name when it is not the username, else the full
 * name (with the nickname), so both the handle and the name are always there.
 */
export const mentionDetail = (user: UserProfile) => {
  const shown = displayName(user)
  const full = fullNameOf(user)
  const extra = shown !== user.username ? shown : [full, user.nickname ? `(${user.nickname})` : ""].filter(Boolean).join(" ")
  return extra ? ` ${extra}` : ""
}

/** A person's name by id (a profile not loaded yet gives the fallback). */
export const nameOf = (id: string, fallback = "someone") => displayName(users.value[id], fallback)

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
