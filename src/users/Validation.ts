import type { PasswordRules } from "../system/RuntimeSettings.ts"
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

export const PASSWORD_MAX = 72

/** Whose password it is, for the rule that a password must not be the account's own name or address. */
export interface PasswordOwner {
  readonly username: string
  readonly email: string
}

/**
 * Characters that show nothing: every Unicode white space, control and format character (zero-width spaces and
 * joiners, direction marks, the BOM), the default-ignorable code points (variation selectors, Hangul fillers),
 * combining marks, and the blank braille pattern, which renders as a space.
 */
const INVISIBLE = /[\p{White_Space}\p{Cc}\p{Cf}\p{Z}\p{M}\p{Default_Ignorable_Code_Point}\u2800]/gu

/** A run of this many of one character ("aaaaa") is refused. */
export const PASSWORD_RUN_MAX = 4

const longestRun = (chars: ReadonlyArray<string>) => {
  let longest = 0
  let run = 0
  for (let i = 0; i < chars.length; i++) {
    run = i > 0 && chars[i] === chars[i - 1] ? run + 1 : 1
    longest = Math.max(longest, run)
  }
  return longest
}

const weak = (id: string, message: string) => ({ id, message })

// Mattermost's character classes (model.LowercaseLetters, UppercaseLetters, NUMBERS, SYMBOLS).
const CLASSES = [
  { rule: "lowercase", label: "a lowercase letter", chars: /[a-z]/ },
  { rule: "uppercase", label: "an uppercase letter", chars: /[A-Z]/ },
  { rule: "number", label: "a number", chars: /[0-9]/ },
  { rule: "symbol", label: "a symbol", chars: /[ !"\\#$%&'()*+,\-./:;<=>?@[\]^_`|~]/ }
] as const

/**
 * The administrator's PasswordSettings, as Mattermost's IsPasswordValidWithSettings: a length below MinimumLength
 * (counted without invisible characters) is pwd_min_length, above PASSWORD_MAX pwd_max_length; otherwise each
 * required class the password lacks adds its name to the id (model.user.is_valid.pwd_lowercase_number.app_error).
 */
const settingsProblem = (password: string, visible: number, rules: PasswordRules) => {
  const requirement = [`at least ${rules.minimumLength} characters`, ...CLASSES.filter((c) => rules[c.rule]).map((c) => c.label)].join(", ")
  if (visible < rules.minimumLength) {
    return weak("model.user.is_valid.pwd_min_length.app_error", `Your password must contain ${requirement}.`)
  }
  if (password.length > PASSWORD_MAX) {
    return weak("model.user.is_valid.pwd_max_length.app_error", `Your password must contain at most ${PASSWORD_MAX} characters.`)
  }
  const missing = CLASSES.filter((c) => rules[c.rule] && !c.chars.test(password)).map((c) => c.rule)
  return missing.length === 0
    ? undefined
    : weak(`model.user.is_valid.pwd_${missing.join("_")}.app_error`, `Your password must contain ${requirement}.`)
}

/**
 * Why a new password is refused (sign-up, change, reset, an administrator's, the command line's), as a Mattermost
 * error id and message, or undefined:
 * - nothing visible (only spaces or invisible characters);
 * - the administrator's PasswordSettings (settingsProblem), the minimum counted without invisible characters (eight
 *   zero-width spaces and an "a" are one character);
 * - one of the most common passwords (CommonPasswords.ts);
 * - a run of more than PASSWORD_RUN_MAX of one character, or fewer than three different characters ("abababab");
 * - the account's username or email address (or its part before the @) in it, in any case.
 */
export const passwordProblem = (password: string, rules: PasswordRules, owner?: PasswordOwner): { readonly id: string; readonly message: string } | undefined => {
  const visible = [...password.replace(INVISIBLE, "")]
  if (password.length > 0 && visible.length === 0) {
    return weak("model.user.is_valid.pwd.app_error", "Your password must contain visible characters, not only spaces or invisible characters.")
  }
  const unmet = settingsProblem(password, visible.length, rules)
  if (unmet !== undefined) return unmet
  if (isCommonPassword(password)) {
    return weak("model.user.is_valid.pwd.app_error", "This password is one of the most commonly used passwords. Please choose another.")
  }
  const folded = visible.join("").normalize("NFKC").toLowerCase()
  const chars = [...folded]
  if (longestRun(chars) > PASSWORD_RUN_MAX || new Set(chars).size < 3) {
    return weak("model.user.is_valid.pwd_repeated.app_error", `Your password must not repeat one character more than ${PASSWORD_RUN_MAX} times in a row, and must use at least 3 different characters.`)
  }
  if (owner !== undefined) {
    const email = owner.email.trim().toLowerCase()
    const local = email.split("@")[0] ?? ""
    const personal = [owner.username.trim().toLowerCase(), email, local].filter((word) => [...word].length >= 3)
    if (personal.some((word) => folded.includes(word))) {
      return weak("model.user.is_valid.pwd_personal.app_error", "Your password must not contain your username or email address.")
    }
  }
  return undefined
}
