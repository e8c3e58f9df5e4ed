import { describe, expect, it } from "vitest"
import { DEFAULT_INTERVAL, intervalSeconds, wantsEmail, waitingVerdict } from "../../src/mail/EmailDecide.ts"
import type { EmailCandidate } from "../../src/mail/EmailNotificationRepo.ts"

/** Every rule of who is mailed and when, on its own (Mattermost's notification.go and email_batching.go). */
const candidate = (over: Partial<EmailCandidate> = {}): EmailCandidate => ({
  user_id: "u",
  mentioned: true,
  user_email: null,
  email_threads: null,
  channel_email: null,
  mark_unread: null,
  status: "offline",
  email_interval: null,
  ...over
})

describe("email decision", () => {
  it("mails a mentioned member who is not online, with email on by default", () => {
    expect(wantsEmail(candidate(), false)).toBe(true)
    expect(wantsEmail(candidate({ status: "away" }), false)).toBe(true)
    expect(wantsEmail(candidate({ status: "dnd" }), false)).toBe(true)
    expect(wantsEmail(candidate({ status: "online" }), false)).toBe(false)
  })

  it("follows the user's email prop, the channel's override and a muted channel", () => {
    expect(wantsEmail(candidate({ user_email: "false" }), false)).toBe(false)
    expect(wantsEmail(candidate({ user_email: "false", channel_email: "true" }), false)).toBe(true)
    expect(wantsEmail(candidate({ user_email: "true", channel_email: "false" }), false)).toBe(false)
    expect(wantsEmail(candidate({ user_email: "false", channel_email: "default" }), false)).toBe(false)
    expect(wantsEmail(candidate({ mark_unread: "mention" }), false)).toBe(false)
    expect(wantsEmail(candidate({ email_interval: "0" }), false)).toBe(false)
  })

  it("mails followers of a thread about replies unless they chose mentions only", () => {
    expect(wantsEmail(candidate({ mentioned: false }), true)).toBe(true)
    expect(wantsEmail(candidate({ mentioned: false, email_threads: "mention" }), true)).toBe(false)
    expect(wantsEmail(candidate({ mentioned: true, email_threads: "mention" }), true)).toBe(true)
    expect(wantsEmail(candidate({ mentioned: false }), false)).toBe(false)
  })

  it("reads the interval preference as Mattermost does", () => {
    expect(intervalSeconds(null)).toBe(DEFAULT_INTERVAL)
    expect(intervalSeconds("garbage")).toBe(DEFAULT_INTERVAL)
    expect(intervalSeconds("-5")).toBe(DEFAULT_INTERVAL)
    expect(intervalSeconds("3600")).toBe(3600)
    expect(intervalSeconds("0")).toBe(0)
  })

  it("waits out the interval from the first notification, sends 'immediately' at once, drops what was seen", () => {
    const waiting = { firstAt: 1_000_000, status: "offline", lastActivityAt: 0, interval: 900 }
    expect(waitingVerdict(waiting, 1_000_000 + 899_999)).toBe("wait")
    expect(waitingVerdict(waiting, 1_000_000 + 900_000)).toBe("send")
    expect(waitingVerdict({ ...waiting, interval: 30 }, 1_000_000)).toBe("send")
    expect(waitingVerdict({ ...waiting, lastActivityAt: 1_000_001 }, 2_000_000)).toBe("discard")
    expect(waitingVerdict({ ...waiting, status: "online" }, 2_000_000)).toBe("discard")
    expect(waitingVerdict({ ...waiting, interval: 0 }, 2_000_000)).toBe("discard")
  })
})
