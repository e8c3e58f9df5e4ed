/**
 * The specification's role table and how a provider's groups become one of those roles.
 *
 * The specification says "the first group that matches a key of role_mappings decides the role". Identity providers
 * do not promise any group order, and PostgreSQL's jsonb does not keep object key order, so "first" is defined
 * deterministically: among the mappings whose group the user has, the most privileged role wins (table order below).
 * The result is therefore the same whatever the order of the groups or of the mapping, and duplicates do not matter.
 */
export const ROLES = ["system_admin", "org_admin", "team_admin", "member", "guest"] as const
export type Role = (typeof ROLES)[number]

export const isRole = (value: unknown): value is Role => typeof value === "string" && (ROLES as ReadonlyArray<string>).includes(value)

const rank = (role: Role) => ROLES.indexOf(role)

/** Groups as a claim carries them: an array of strings, or one string; anything else counts as no groups. */
export const groupsFromClaim = (claim: unknown): ReadonlyArray<string> =>
  Array.isArray(claim) ? claim.filter((g): g is string => typeof g === "string") : typeof claim === "string" ? [claim] : []

/**
 * The role for a user with these groups. The mapping is read as own entries only (a Map), so group names such as
 * `__proto__` or `constructor` never reach an inherited property.
 */
export const roleForGroups = (
  groups: ReadonlyArray<string>,
  mappings: ReadonlyMap<string, Role>,
  defaultRole: Role
): Role => {
  let best: Role | undefined
  for (const group of new Set(groups)) {
    const role = mappings.get(group)
    if (role !== undefined && (best === undefined || rank(role) < rank(best))) best = role
  }
  return best ?? defaultRole
}

/** Stored role mappings (a JSON object) as a Map of own, valid entries. */
export const mappingsFromJson = (value: unknown): ReadonlyMap<string, Role> => {
  const out = new Map<string, Role>()
  if (value === null || typeof value !== "object" || Array.isArray(value)) return out
  for (const [group, role] of Object.entries(value)) if (isRole(role)) out.set(group, role)
  return out
}

/**
 * The Mattermost roles string for a role of the table. Mattermost has no system-wide team or organization
 * administrator: org_admin becomes its delegated user administrator (system_user_manager), team_admin stays a
 * system_user (team administration is granted per team), guest is system_guest.
 */
export const mattermostRoles = (role: Role): string => {
  switch (role) {
    case "system_admin":
      return "system_admin system_user"
    case "org_admin":
      return "system_user_manager system_user"
    case "team_admin":
    case "member":
      return "system_user"
    case "guest":
      return "system_guest"
  }
}
