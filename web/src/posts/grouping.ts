import type { Post } from "@mattermost/types/posts"

export const day = (at: number) => new Date(at).toDateString()
export const dayLabel = (at: number) => {
  const d = new Date(at)
  const today = new Date()
  if (d.toDateString() === today.toDateString()) return "Today"
  if (d.toDateString() === new Date(today.getTime() - 86_400_000).toDateString()) return "Yesterday"
  return (d.getFullYear() === today.getFullYear() ? thisYear : otherYear).format(d)
}
// Made once: toLocaleDateString with options builds a formatter per call (see formatTime in posts/state.ts).
const thisYear = new Intl.DateTimeFormat([], { weekday: "long", month: "long", day: "numeric" })
const otherYear = new Intl.DateTimeFormat([], { weekday: "long", month: "long", day: "numeric", year: "numeric" })

/** Posts whose author line always shows: system messages, ephemeral answers and integrations' posts (Mattermost's). */
const standsAlone = (post: Post) => post.type.startsWith("system_") || post.props?.from_webhook === "true"

/** Posts from one author within five minutes, without a date change, show as one group (Mattermost's rule). */
export const isCompact = (post: Post, prev: Post | undefined) =>
  prev !== undefined && !standsAlone(post) && !standsAlone(prev) && prev.user_id === post.user_id && post.create_at - prev.create_at < 5 * 60_000 && day(prev.create_at) === day(post.create_at) &&
  !prev.delete_at && (post.root_id === "" || post.root_id === prev.root_id || post.root_id === prev.id)
