import { RESERVED_USERNAMES, USERNAME_MAX, USERNAME_MIN, usernameProblem } from "../users/Validation.ts"

/**
 * Usernames for provisioned users (provisioning rule 2): the `preferred_username` claim, else the `name` claim, else
 * the email's local part, each normalized to Mattermost's username rules; a numeric suffix when the name is taken.
 *
 * Normalization folds compatibility forms (full-width `ａｌｉｃｅ` is `alice`), strips accents, lowercases, turns
 * every other character into `-`, and makes the name start with a letter. Because uniqueness is case-insensitive in
 * the database and the normalized form is already lowercase ASCII, `Alice`, `ALICE` and `ａｌｉｃｅ` all compete for
 * `alice` and get suffixes.
 */
export const normalizeUsername = (raw: string): string =>
  raw
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .normalize("NFKC")
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, "-")
    .replace(/-{2,}/g, "-")
    .replace(/^[^a-z]+/, "")
    .replace(/[-._]+$/, "")
    .slice(0, USERNAME_MAX)
    .replace(/[-._]+$/, "")

const FALLBACK = "user"

/** The base name to try first: the first source that normalizes to a usable name. */
export const usernameBase = (sources: { readonly preferredUsername?: string; readonly name?: string; readonly email?: string }) => {
  const candidates = [sources.preferredUsername, sources.name, sources.email?.split("@")[0]]
  for (const candidate of candidates) {
    if (candidate === undefined) continue
    const base = normalizeUsername(candidate)
    if (base.length >= USERNAME_MIN) return base
  }
  return FALLBACK
}

/** `base` with suffix `n` (n = 0 means none), cut so that the whole stays within the length limit. */
export const withSuffix = (base: string, n: number) => {
  if (n === 0) return base
  const suffix = String(n)
  return `${base.slice(0, USERNAME_MAX - suffix.length).replace(/[-._]+$/, "")}${suffix}`
}

/**
 * The first free name among base, base1, base2, … given the lowercase names already taken. Reserved names count as
 * taken. Every answer passes `usernameProblem`.
 */
export const firstFreeUsername = (base: string, taken: ReadonlySet<string>): string => {
  for (let n = 0; ; n++) {
    const candidate = withSuffix(base, n)
    if (!taken.has(candidate) && !RESERVED_USERNAMES.has(candidate) && usernameProblem(candidate) === undefined) return candidate
  }
}
