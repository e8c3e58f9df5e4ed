import type { EmailCandidate } from "./EmailNotificationRepo.ts"

/**
 * Who gets a notification email and when, as Mattermost decides it (app/notification.go and email_batching.go): a
 * member the post mentions (every other member of a DM or GM), or who follows the thread of a reply and mails thread
 * replies (`email_threads` "all", the default), whose status is not online, whose email notifications are on (user
 * notify prop `email`, overridden by the channel's unless "default"), in a channel not muted, and whose interval is
 * not "never". Pure, so that every rule is testable on its own.
 */

/** The `email_interval` preference (category "notifications"), in seconds as the web app stores it. */
export const NEVER = 0
/** "Immediately": mailed on the job's next run, without waiting for others to batch with. */
export const IMMEDIATE = 30
/** Fifteen minutes: Mattermost's interval when batching is on and the user chose none (or something unreadable). */
export const DEFAULT_INTERVAL = 900

/** The user's interval in seconds. Any whole number is honoured, as Mattermost's server parses it. */
export const intervalSeconds = (preference: string | null) =>
  preference !== null && /^\d{1,7}$/.test(preference.trim()) ? Number(preference.trim()) : DEFAULT_INTERVAL

/** How long the first waiting notification waits for others before the mail goes. */
export const waitMs = (intervalSec: number) => intervalSec === IMMEDIATE ? 0 : intervalSec * 1000

export const wantsEmail = (candidate: EmailCandidate, isReply: boolean) => {
  if (candidate.status === "online") return false
  if (candidate.mark_unread === "mention") return false
  const channelLevel = candidate.channel_email ?? "default"
  const allows = channelLevel === "default" || channelLevel === "" ? candidate.user_email !== "false" : channelLevel !== "false"
  if (!allows || intervalSeconds(candidate.email_interval) === NEVER) return false
  return candidate.mentioned || (isReply && (candidate.email_threads ?? "all") === "all")
}

export type WaitingVerdict = "wait" | "send" | "discard"

/**
 * What to do with a user's waiting notifications: drop them once the user has been active since the first one came
 * (they have seen the posts) or wants none any more; mail them once the interval has passed.
 */
export const waitingVerdict = (
  waiting: { readonly firstAt: number; readonly status: string; readonly lastActivityAt: number; readonly interval: number },
  now: number
): WaitingVerdict => {
  if (waiting.interval === NEVER || waiting.status === "online" || waiting.lastActivityAt >= waiting.firstAt) return "discard"
  return now - waiting.firstAt >= waitMs(waiting.interval) ? "send" : "wait"
}
