/**
 * Who gets a message push, as Mattermost decides it (server app/notification.go, DoesNotifyPropsAllowPushNotification,
 * DoesStatusAllowPushNotification), from the member's notification settings, the channel's, the member's status
 * and the mentions in the message. Pure, so that every rule is testable on its own.
 */

export interface Mentions {
  /** Lowercased usernames mentioned with @username. */
  readonly usernames: ReadonlySet<string>
  readonly channel: boolean
  readonly all: boolean
  readonly here: boolean
}

const MENTION = /(^|[^\w@])@([a-z0-9][a-z0-9._-]*)/gi

/**
 * The @-mentions of a message. A trailing `.`, `_` or `-` ends a sentence more often than a username, so each
 * mention also counts without it (as Mattermost does): "@alice." mentions alice.
 */
export const parseMentions = (message: string): Mentions => {
  const usernames = new Set<string>()
  let channel = false
  let all = false
  let here = false
  for (const match of message.matchAll(MENTION)) {
    let word = match[2].toLowerCase()
    for (;;) {
      if (word === "channel") channel = true
      else if (word === "all") all = true
      else if (word === "here") here = true
      else usernames.add(word)
      const trimmed = word.replace(/[._-]$/, "")
      if (trimmed === word || trimmed === "") break
      word = trimmed
    }
  }
  return { usernames, channel, all, here }
}

export interface Candidate {
  readonly username: string
  readonly userProps: Readonly<Record<string, string>>
  readonly channelProps: Readonly<Record<string, string>>
  /** online, away, dnd, offline, ooo (no status row counts as offline). */
  readonly status: string
  readonly followsThread: boolean
}

export interface PostContext {
  readonly channelType: string
  /** The post is a reply (root_id set). */
  readonly isReply: boolean
  readonly mentions: Mentions
  /** A test notification (the post's force_notification prop, set by the server only): pushed whatever the settings. */
  readonly forced?: boolean
}

export type Verdict = "push" | "not_mentioned" | "push_off" | "muted" | "dnd" | "status"

/** Whether this post mentions the candidate, in Mattermost's broad sense (DMs and GMs always do). */
export const isMentioned = (candidate: Candidate, post: PostContext) => {
  if (post.channelType === "D" || post.channelType === "G") return true
  const m = post.mentions
  if (m.usernames.has(candidate.username.toLowerCase())) return true
  const ignoreChannelMentions = candidate.channelProps.ignore_channel_mentions === "on" ||
    ((candidate.channelProps.ignore_channel_mentions ?? "default") === "default" && candidate.userProps.channel === "false")
  if (!ignoreChannelMentions) {
    if (m.channel || m.all) return true
    if (m.here && candidate.status === "online") return true
  }
  return post.isReply && candidate.followsThread && (candidate.userProps.push_threads ?? "all") !== "mention"
}

/** The push decision for one channel member who is not the author. */
export const decide = (candidate: Candidate, post: PostContext): Verdict => {
  if (post.forced === true) return "push"
  if (candidate.channelProps.mark_unread === "mention") return "muted"
  if (candidate.status === "dnd" || candidate.status === "ooo") return "dnd"
  const channelLevel = candidate.channelProps.push ?? "default"
  const level = channelLevel === "default" || channelLevel === "" ? candidate.userProps.push ?? "mention" : channelLevel
  if (level === "none") return "push_off"
  if (level !== "all" && !isMentioned(candidate, post)) return "not_mentioned"
  const pushStatus = candidate.userProps.push_status ?? "online"
  if (pushStatus === "away" && candidate.status === "online") return "status"
  if (pushStatus === "offline" && candidate.status !== "offline") return "status"
  return "push"
}
