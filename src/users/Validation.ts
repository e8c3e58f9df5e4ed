import { isCommonPassword } from "./CommonPasswords.ts"

/** Mattermost's rules for usernames and emails, shared by sign-up, patch and SSO provisioning. */
// Names a mention or the server itself uses. Mattermost restricts all, channel, matterbot and system; here and
// everyone would collide with the @here and @everyone mentions. "admin" stays free: it is the name people give the
// first account (the README's example).
export const RESERVED_USERNAMES = new Set(["all", "channel", "here", "matterbot", "system", "everyone"])

export const USERNAME_MIN = 3
export const USERNAME_MAX = 22

export const usernameProblem = (username: string): string | undefined => {
  if (username.length < USERNAME_MIN || username.length > USERNAME_MAX) {
    return `Username must be between ${USERNAME_MIN} and ${USERNAME_MAX} characters.`
  }
  if (!/^[a-z][a-z0-9.\-_]*$/.test(username)) {
    return "Username must begin with a lowercase letter and contain only lowercase letters, numbers and the symbols '.', '-' and '_'."
  }
  if (RESERVED_USERNAMES.has(username)) return `The username "${username}" is reserved.`
  return undefined
}

export const isValidEmail = (email: string) =>
  email.length <= 128 && /^[^\s@<>()[\]\\,;:"]+@[^\s@<>()[\]\\,;:"]+\.[^\s@<>()[\]\\,;:"]+$/.test(email)

export const PASSWORD_MIN = 8
export const PASSWORD_MAX = 72

/**
 * Why a new password is refused (sign-up, change, reset), as the Mattermost error id and message: a length outside
 * the bounds, only whitespace, or one of the 10,000 most common passwords.
 */
export const passwordProblem = (password: string): { readonly id: string; readonly message: string } | undefined => {
  if (password.length < PASSWORD_MIN || password.length > PASSWORD_MAX) {
    return { id: "model.user.is_valid.pwd_length.app_error", message: `Your password must contain between ${PASSWORD_MIN} and ${PASSWORD_MAX} characters.` }
  }
  if (password.trim() === "") return { id: "model.user.is_valid.pwd.app_error", message: "Your password must contain more than spaces." }
  if (isCommonPassword(password)) {
    return { id: "model.user.is_valid.pwd.app_error", message: "This password is one of the most commonly used passwords. Please choose another." }
  }
  return undefined
}
