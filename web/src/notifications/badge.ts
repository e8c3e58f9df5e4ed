import { computed, effect } from "@preact/signals"
import { path } from "../app/router.ts"
import { currentChannelId, currentTeamId, me, teams } from "../app/state.ts"
import { channelLabel, channels, members, unread } from "../channels/state.ts"
import { teamUnreads } from "../people/teams.ts"

/**
 * What is waiting for the person, for the tab title and the favicon: mentions (the open team's channels, direct and
 * group messages, and the other teams' counts from GET /users/me/teams/unread) and whether anything is unread at all.
 * Muted channels count only their mentions (`unread` in channels/state.ts).
 */
export const attention = computed(() => {
  const teamId = currentTeamId.value
  let mentions = 0
  let unreadAny = false
  for (const member of Object.values(members.value)) {
    const channel = channels.value[member.channel_id]
    if (!channel || channel.delete_at > 0 || (channel.team_id !== teamId && channel.team_id !== "")) continue
    const u = unread(channel.id)
    mentions += u.mentions
    unreadAny ||= u.unread
  }
  for (const [id, t] of Object.entries(teamUnreads.value)) {
    if (id === teamId) continue
    mentions += t.mention_count ?? 0
    unreadAny ||= (t.msg_count ?? 0) > 0
  }
  return { mentions, unread: unreadAny || mentions > 0 }
})

/**
 * Mattermost's tab title: "(3) Town Square - Team" with mentions, "* Town Square - Team" with only unread messages,
 * "Town Square - Team" otherwise; the site's name outside a team.
 */
export const pageTitle = computed(() => {
  const { mentions, unread: any } = attention.value
  const prefix = mentions > 0 ? `(${mentions}) ` : any ? "* " : ""
  const team = teams.value.find((t) => t.id === currentTeamId.value)
  const channel = channels.value[currentChannelId.value]
  const signedIn = !!me.value
  const where = !signedIn || !team ? "" : path().endsWith("/threads") ? "Threads" : channel ? channelLabel(channel) : ""
  if (!where || !team) return `${prefix}Team Chat`
  return `${prefix}${where} - ${team.display_name}`
})

const BASE = "/favicon.svg"
let base: Promise<HTMLImageElement> | undefined
const loadBase = () =>
  (base ??= new Promise((resolve, reject) => {
    const img = new Image()
    img.onload = () => resolve(img)
    img.onerror = reject
    img.src = BASE
  }))

/**
 * The favicon with Mattermost's marks: a red dot for mentions, a dark one for unread messages (both ringed in white), none otherwise. The
 * icon is drawn once per change into a canvas and set as a data: address (the page's CSP allows data: images).
 */
const drawFavicon = async (mark: "mention" | "unread" | "none") => {
  const link = document.querySelector<HTMLLinkElement>('link[rel="icon"]')
  if (!link) return
  link.dataset.badge = mark
  if (mark === "none") {
    link.type = "image/svg+xml"
    link.href = BASE
    return
  }
  const img = await loadBase().catch(() => undefined)
  if (!img || link.dataset.badge !== mark) return
  const canvas = document.createElement("canvas")
  canvas.width = canvas.height = 64
  const g = canvas.getContext("2d")
  if (!g) return
  g.drawImage(img, 0, 0, 64, 64)
  g.beginPath()
  g.arc(48, 16, 15, 0, Math.PI * 2)
  g.fillStyle = "#ffffff"
  g.fill()
  g.beginPath()
  g.arc(48, 16, 11, 0, Math.PI * 2)
  g.fillStyle = mark === "mention" ? "#d24b4e" : "#1e325c"
  g.fill()
  link.type = "image/png"
  link.href = canvas.toDataURL("image/png")
}

let installed = false
export const installBadges = () => {
  if (installed) return
  installed = true
  effect(() => {
    document.title = pageTitle.value
  })
  effect(() => {
    const { mentions, unread: any } = attention.value
    void drawFavicon(mentions > 0 ? "mention" : any ? "unread" : "none")
  })
}
