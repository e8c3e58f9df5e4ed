import { CHANNEL_NAME_MAX } from "../../channels/ChannelValidation.ts"
import { RESERVED_USERNAMES, USERNAME_MAX, USERNAME_MIN } from "../../users/Validation.ts"

/**
 * Slack's names made valid here. Slack allows longer names and more characters than Mattermost does (usernames of 3
 * to 22 lowercase letters, digits, '.', '-' and '_' starting with a letter; channel names of up to 64 lowercase
 * letters, digits, '-' and '_'), so a name is folded to ASCII, cut to length and, when taken, given a number.
 */
const ascii = (s: string) => s.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase()

export const usernameFrom = (slackName: string): string => {
  let name = ascii(slackName).replace(/[^a-z0-9.\-_]+/g, "_")
  if (!/^[a-z]/.test(name)) name = `u${name}`
  name = name.slice(0, USERNAME_MAX)
  while (name.length < USERNAME_MIN) name += "_"
  return RESERVED_USERNAMES.has(name) ? `${name}_` : name
}

export const channelNameFrom = (slackName: string, slackId: string): string => {
  const name = ascii(slackName).replace(/[^a-z0-9_-]+/g, "-").slice(0, CHANNEL_NAME_MAX).replace(/^[-_]+|[-_]+$/g, "")
  return name === "" ? `channel-${slackId.toLowerCase()}` : name
}

/** `name`, then `name` with a number from 2, cut to stay within `max` characters: the candidates in order. */
export function* candidates(name: string, max: number): Generator<string> {
  yield name
  for (let n = 2; ; n++) yield name.slice(0, max - String(n).length) + String(n)
}

/** The first candidate that is not taken. */
export const unique = (name: string, max: number, taken: (candidate: string) => boolean): string => {
  for (const candidate of candidates(name, max)) if (!taken(candidate)) return candidate
  return name
}
