/** Mattermost's rules for a channel's names (model.Channel IsValid), checked as the person types. */
export const urlFromDisplayName = (display: string) =>
  display.toLowerCase().normalize("NFKD").replace(/[\u0300-\u036f]/g, "").replace(/[^a-z0-9_]+/g, "-").replace(/^[-_]+|[-_]+$/g, "").slice(0, 64).replace(/[-_]+$/, "")

export const urlProblem = (name: string): string => {
  if (name.length < 2) return "The URL must be at least 2 characters."
  if (name.length > 64) return "The URL must be at most 64 characters."
  if (!/^[a-z0-9]+([a-z0-9_-]*[a-z0-9])?$/.test(name)) return "Use only lowercase letters, numbers, dashes and underscores, beginning and ending with a letter or number."
  if (/^[a-z0-9]{26}__[a-z0-9]{26}$/.test(name)) return "This URL is reserved for direct messages."
  return ""
}

export const displayNameProblem = (display: string): string => {
  if (display.trim() === "") return "Enter a name for the channel."
  if ([...display].length > 64) return "The name must be at most 64 characters."
  return ""
}
