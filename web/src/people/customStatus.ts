import { emojiChar } from "../posts/emoji.ts"

/** A person's custom status as one line ("🗓 In a meeting"), or "" when none is set or it has expired. */
export const customStatus = (user: { props?: Record<string, unknown> }) => {
  const raw = user.props?.customStatus
  if (typeof raw !== "string" || raw === "") return ""
  try {
    const value = JSON.parse(raw) as { emoji?: string; text?: string; expires_at?: string }
    // Mattermost writes the zero time ("0001-01-01T00:00:00Z") for a status that does not expire.
    if (value.expires_at && !value.expires_at.startsWith("0001-") && Date.parse(value.expires_at) < Date.now()) return ""
    return [value.emoji ? emojiChar(value.emoji) ?? `:${value.emoji}:` : "", value.text ?? ""].join(" ").trim()
  } catch {
    return ""
  }
}
