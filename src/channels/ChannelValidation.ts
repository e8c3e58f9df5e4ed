/** Mattermost's rules for channel fields (model.Channel IsValid). */

export const CHANNEL_NAME_MAX = 64
export const DISPLAY_NAME_MAX = 64
export const HEADER_MAX = 1024
export const PURPOSE_MAX = 250

export const channelNameProblem = (name: string): string | undefined => {
  if (name.length < 1 || name.length > CHANNEL_NAME_MAX) return `Name must be 1 to ${CHANNEL_NAME_MAX} characters.`
  if (!/^[a-z0-9]+([a-z0-9_-]*[a-z0-9])?$/.test(name)) {
    return "Name must use only lowercase letters, numbers, dashes and underscores, and begin and end with a letter or number."
  }
  // The DM naming scheme is reserved so that a team channel can never pose as a direct message.
  if (/^[a-z0-9]{26}__[a-z0-9]{26}$/.test(name)) return "Name must not look like a direct message channel name."
  return undefined
}

const runes = (s: string) => [...s].length

export interface ChannelFields {
  readonly display_name?: string | undefined
  readonly header?: string | undefined
  readonly purpose?: string | undefined
}

/** The first problem with the editable fields, as [error id, message]. */
export const fieldsProblem = (f: ChannelFields): readonly [string, string] | undefined => {
  if (f.display_name !== undefined && (f.display_name.trim() === "" || runes(f.display_name) > DISPLAY_NAME_MAX)) {
    return ["model.channel.is_valid.display_name.app_error", `Display name must be 1 to ${DISPLAY_NAME_MAX} characters.`]
  }
  if (f.header !== undefined && runes(f.header) > HEADER_MAX) {
    return ["model.channel.is_valid.header.app_error", `Header must be at most ${HEADER_MAX} characters.`]
  }
  if (f.purpose !== undefined && runes(f.purpose) > PURPOSE_MAX) {
    return ["model.channel.is_valid.purpose.app_error", `Purpose must be at most ${PURPOSE_MAX} characters.`]
  }
  return undefined
}
