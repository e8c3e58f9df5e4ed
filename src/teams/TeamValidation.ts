/** Mattermost's rules for team names and display names (model.Team IsValid). */

const RESERVED = new Set([
  "admin", "api", "channel", "claim", "error", "files", "help", "landing", "login", "mfa", "oauth", "plug",
  "plugins", "post", "signup", "boards", "playbooks"
])

export const TEAM_NAME_MIN = 2
export const TEAM_NAME_MAX = 64
export const DISPLAY_NAME_MAX = 64
export const DESCRIPTION_MAX = 255

export const teamNameProblem = (name: string): string | undefined => {
  if (name.length < TEAM_NAME_MIN || name.length > TEAM_NAME_MAX) {
    return `Name must be ${TEAM_NAME_MIN} to ${TEAM_NAME_MAX} characters.`
  }
  if (!/^[a-z0-9]+([a-z0-9-]*[a-z0-9])?$/.test(name)) {
    return "Name must use only lowercase letters, numbers and dashes, and begin and end with a letter or number."
  }
  if (RESERVED.has(name)) return `The team name "${name}" is reserved.`
  return undefined
}

export const displayNameProblem = (displayName: string): string | undefined =>
  displayName.trim() === "" || [...displayName].length > DISPLAY_NAME_MAX
    ? `Display name must be 1 to ${DISPLAY_NAME_MAX} characters.`
    : undefined

/** Mattermost's CheckUserDomain: an email domain among a team's allowed domains (comma or space separated), if any. */
export const domainAllowed = (email: string, allowed: string) => {
  const domains = allowed.split(/[\s,]+/).map((d) => d.trim().toLowerCase().replace(/^@/, "")).filter((d) => d !== "")
  return domains.length === 0 || domains.some((d) => email.toLowerCase().endsWith(`@${d}`))
}
