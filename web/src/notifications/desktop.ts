import { signal } from "@preact/signals"
import type { ServerChannel as Channel } from "@mattermost/types/channels"
import type { Post } from "@mattermost/types/posts"
import { collapsedThreads } from "../account/preferences.ts"
import { navigate } from "../app/router.ts"
import { currentChannelId, me, teams } from "../app/state.ts"
import { channelLabel, members } from "../channels/state.ts"
import { displayName, statuses, users } from "../people/state.ts"
import { posts } from "../posts/state.ts"
import { panel } from "../shell/panels.ts"
import { textMentionsMe } from "./mentions.ts"
import { playSound } from "./sound.ts"

/** The browser's permission for notifications, kept as a signal so the banner and Settings follow it. */
export const permission = signal<NotificationPermission | "unsupported">(typeof Notification === "undefined" ? "unsupported" : Notification.permission)

/** Asked from a click (browsers refuse a request without a user gesture). */
export const requestPermission = async () => {
  if (typeof Notification === "undefined") return "unsupported" as const
  const answer = await Notification.requestPermission()
  permission.value = answer
  return answer
}

type UserNotify = { comments?: string; desktop?: string; desktop_sound?: string; desktop_notification_sound?: string; desktop_threads?: string }
type MemberNotify = { desktop?: string; desktop_sound?: string; desktop_notification_sound?: string; desktop_threads?: string; mark_unread?: string }

/** A level saved on the membership wins unless it is "default" (or missing), as in Mattermost. */
const level = (own: string | undefined, account: string | undefined, fallback: string) => (own && own !== "default" ? own : account || fallback)

/** Whether the person follows a thread, as far as this page knows: they wrote its root or one of its replies. */
const follows = (rootId: string, myId: string) =>
  posts.value[rootId]?.user_id === myId || Object.values(posts.value).some((p) => p.root_id === rootId && p.user_id === myId)

/**
 * Whether a new post raises a desktop notification, by Mattermost's rules (sendDesktopNotification): never one's own
 * posts or system messages; nothing while one's status is Do Not Disturb or Out of Office, nor in a muted channel; the
 * channel's desktop level, else the account's: "all", "mention" (mentions, direct and group messages) or "none"; a
 * reply in collapsed threads only when it mentions one or (desktop_threads "all") is in a thread one follows; and
 * nothing for the channel (or thread) on screen while the window has focus.
 */
export const shouldNotify = (post: Post, channel: Channel, serverMentions: ReadonlyArray<string>) => {
  const user = me.value
  if (!user || post.user_id === user.id || (post.type ?? "").startsWith("system_")) return false
  const status = statuses.value[user.id]
  if (status === "dnd" || status === "ooo") return false
  const member = members.value[post.channel_id]
  const own = (member?.notify_props ?? {}) as MemberNotify
  if (own.mark_unread === "mention") return false
  const account = (user.notify_props ?? {}) as UserNotify
  const desktop = level(own.desktop, account.desktop, "mention")
  if (desktop === "none") return false
  const direct = channel.type === "D" || channel.type === "G"
  const threadReply = !!post.root_id && collapsedThreads.value
  // Without collapsed threads, "Reply notifications" (comments) treats replies in one's threads as mentions.
  const comments = !!post.root_id && !threadReply &&
    ((account.comments === "root" && posts.value[post.root_id]?.user_id === user.id) || (account.comments === "any" && follows(post.root_id, user.id)))
  const mentioned = direct || comments || serverMentions.includes(user.id) || textMentionsMe(post.message, post.channel_id)
  if (threadReply && !mentioned && !direct) {
    const threads = level(own.desktop_threads, account.desktop_threads, "all")
    if (!(desktop === "all" || (threads === "all" && follows(post.root_id, user.id)))) return false
  } else if (desktop === "mention" && !mentioned) return false
  const focused = document.hasFocus() && !document.hidden
  if (focused) {
    const open = panel.value
    if (threadReply ? open?.kind === "thread" && open.rootId === post.root_id : currentChannelId.value === post.channel_id) return false
  }
  return true
}

/** The sound of a notification, or none: the channel's desktop_sound ("on"/"off"/"default"), else the account's. */
const soundFor = (channelId: string) => {
  const own = (members.value[channelId]?.notify_props ?? {}) as MemberNotify
  const account = (me.value?.notify_props ?? {}) as UserNotify
  const on = own.desktop_sound === "on" || ((own.desktop_sound ?? "default") === "default" && account.desktop_sound !== "false")
  return on ? own.desktop_notification_sound || account.desktop_notification_sound || "Bing" : undefined
}

/** A click on the notification focuses the window and opens the post by its permalink (posts/Permalink.tsx): its
 * channel with the post centred, or a reply in its thread. */
const open = (post: Post, channel: Channel) => {
  window.focus()
  // Direct messages belong to no team: they open in the team of the address.
  const team = teams.value.find((t) => t.id === channel.team_id) ?? teams.value.find((t) => location.pathname.startsWith(`/${t.name}/`)) ?? teams.value[0]
  if (team) navigate(`/${team.name}/pl/${post.id}`)
}

const excerpt = (message: string) => message.replace(/\s+/g, " ").trim().slice(0, 200)

/** Raises the notification (and its sound) when the rules say so. */
export const notifyPost = (post: Post, channel: Channel, serverMentions: ReadonlyArray<string>) => {
  if (typeof Notification === "undefined" || Notification.permission !== "granted") return
  if (!shouldNotify(post, channel, serverMentions)) return
  // A webhook's post carries the name it chose; anyone else is named as the client names people everywhere.
  const props = (post.props ?? {}) as { override_username?: string; from_webhook?: string }
  const known = users.value[post.user_id]
  const sender = props.from_webhook === "true" && props.override_username ? props.override_username : known ? displayName(known) : "Someone"
  // A DM is titled by its sender alone ("frank in frank" says nothing more).
  const title = channel.type !== "D" ? `${sender} in ${channelLabel(channel)}` : sender
  const sound = soundFor(post.channel_id)
  // Silent: the sound is ours (the system's would play too, and ignore the person's choice).
  const note = new Notification(title, { body: excerpt(post.message) || "(attachment)", tag: post.id, silent: true })
  note.onclick = () => {
    open(post, channel)
    note.close?.()
  }
  if (sound) playSound(sound)
}
