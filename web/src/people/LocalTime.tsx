import type { UserProfile } from "@mattermost/types/users"
import { useEffect, useState } from "preact/hooks"
import { militaryTime } from "../account/preferences.ts"

/** A user's time zone from their profile (Mattermost's timezone object: automatic unless they chose one). */
export const timeZoneOf = (user: UserProfile): string => {
  const tz = (user.timezone ?? {}) as { useAutomaticTimezone?: string | boolean; automaticTimezone?: string; manualTimezone?: string }
  const automatic = tz.useAutomaticTimezone === true || tz.useAutomaticTimezone === "true" || tz.useAutomaticTimezone === undefined
  return (automatic ? tz.automaticTimezone : tz.manualTimezone) || tz.automaticTimezone || ""
}

const formatters = new Map<string, Intl.DateTimeFormat>()
const formatter = (zone: string, h24: boolean) => {
  const key = `${zone}|${h24}`
  let f = formatters.get(key)
  if (!f) {
    f = new Intl.DateTimeFormat([], { timeZone: zone, hour: "numeric", minute: "2-digit", hourCycle: h24 ? "h23" : "h12", weekday: "short" })
    formatters.set(key, f)
  }
  return f
}

/** "Local time: Tue 9:41 PM (Asia/Tokyo)", ticking each minute; nothing when the zone is unknown or invalid. */
export const LocalTime = ({ user }: { user: UserProfile }) => {
  const [now, setNow] = useState(Date.now())
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 30_000)
    return () => clearInterval(t)
  }, [])
  const zone = timeZoneOf(user)
  if (!zone) return null
  let text: string
  try {
    text = formatter(zone, militaryTime.value).format(now)
  } catch {
    return null
  }
  return <p class="local-time"><span class="muted">Local time</span> {text} <span class="muted">({zone.replace(/_/g, " ")})</span></p>
}
