import { Clock, Effect, Option, Schema } from "effect"
import { newId } from "../../layers/Crypto.ts"
import { Db } from "../../layers/Db.ts"
import { DomainEvent } from "../../schemas/Events.ts"
import { rows } from "../../layers/Rows.ts"
import { EventBus } from "../events/EventBus.ts"
import { UserRepo } from "../users/UserRepo.ts"
import { DEFAULT_NOTIFY_PROPS, UserRow } from "../users/UserRow.ts"
import type { ProviderRow, ProviderType } from "./ProviderConfig.ts"
import { isRole, mappingsFromJson, mattermostRoles, type Role, roleForGroups } from "./Roles.ts"
import { SsoErrors } from "./SsoErrors.ts"
import { firstFreeUsername, usernameBase, withSuffix } from "./Usernames.ts"
import { anyText } from "../../layers/SqlArrays.ts"

const Names = rows("Provisioning names", Schema.Struct({ name: Schema.String }))
const Users = rows("Provisioning users", UserRow)
const UsersWithIdentity = rows("Provisioning users with identity", Schema.Struct({ ...UserRow.fields, other_identity: Schema.Boolean }))

/**
 * The provisioning rules of the specification, applied to an identity whose email the provider has verified:
 * 1. an identity already linked (provider, subject) signs in as its user, whatever its email says today;
 * 2. else a user with that email is linked (no password change; last login updated), unless that user already has
 *    another identity at this provider (never two subjects of one provider on one account: no takeover);
 * 3. else, with auto_provision, a user is created with default_role or the role its groups map to;
 * 4. else the sign-in is refused.
 * Identities are keyed by (provider, subject), never by email alone. Roles of existing users are never changed here.
 */
export interface VerifiedIdentity {
  readonly subject: string
  /** Verified by the provider; callers never pass an unverified email. */
  readonly email: string
  readonly preferredUsername?: string
  readonly name?: string
  readonly givenName?: string
  readonly familyName?: string
  readonly groups: ReadonlyArray<string>
}

export interface Provisioned {
  readonly user: UserRow
  readonly outcome: "signed_in" | "linked" | "created"
}

/** The Mattermost auth_service of users created through each provider kind (what the official apps show). */
const AUTH_SERVICE: Record<ProviderType, string> = { codehost: "gitlab", webidp: "google", oidc: "openid" }

export const roleFor = (provider: ProviderRow, groups: ReadonlyArray<string>): Role => {
  const fallback = isRole(provider.default_role) ? provider.default_role : "member"
  return provider.provider_type === "oidc" ? roleForGroups(groups, mappingsFromJson(provider.role_mappings), fallback) : fallback
}

const splitName = (identity: VerifiedIdentity) => {
  if (identity.givenName !== undefined || identity.familyName !== undefined) {
    return { first: identity.givenName ?? "", last: identity.familyName ?? "" }
  }
  const name = (identity.name ?? "").trim()
  const space = name.indexOf(" ")
  return space < 0 ? { first: name, last: "" } : { first: name.slice(0, space), last: name.slice(space + 1).trim() }
}

const USERNAME_BATCH = 50
const INSERT_ATTEMPTS = 5

export const provision = (provider: ProviderRow, identity: VerifiedIdentity) =>
  Effect.gen(function*() {
    const db = yield* Db
    const repo = yield* UserRepo
    const sql = db.sql
    const now = yield* Clock.currentTimeMillis

    const freeUsername = (base: string) =>
      Effect.gen(function*() {
        for (let start = 0; ; start += USERNAME_BATCH) {
          const candidates = Array.from({ length: USERNAME_BATCH }, (_, i) => withSuffix(base, start + i))
          const rows = yield* sql`SELECT lower(username) AS name FROM users WHERE lower(username) = ${anyText(sql, candidates)}`.pipe(Names)
          const taken = new Set(rows.map((r) => r.name))
          const free = candidates.find((c) => firstFreeUsername(c, taken) === c)
          if (free !== undefined) return free
        }
      })

    const touch = (userId: string) =>
      Effect.all([
        sql`UPDATE user_identities SET email = ${identity.email}, last_login_at = ${now}
            WHERE provider_id = ${provider.id} AND subject = ${identity.subject}`,
        sql`UPDATE users SET last_login = ${now}, failed_attempts = 0 WHERE id = ${userId}`
      ], { discard: true })

    const link = (userId: string) =>
      sql`INSERT INTO user_identities (provider_id, subject, user_id, email, create_at, last_login_at)
          VALUES (${provider.id}, ${identity.subject}, ${userId}, ${identity.email}, ${now}, ${now})`

    const result = yield* db.transaction(Effect.gen(function*() {
      // Serializes concurrent first logins of one identity, so that it is linked or created exactly once.
      yield* sql`SELECT pg_advisory_xact_lock(hashtextextended(${`${provider.id}:${identity.subject}`}, 0))`
      const linked = yield* sql`
        SELECT u.* FROM user_identities i JOIN users u ON u.id = i.user_id
        WHERE i.provider_id = ${provider.id} AND i.subject = ${identity.subject}`.pipe(Users)
      if (linked.length > 0) {
        if (Number(linked[0].delete_at) > 0) return yield* SsoErrors.deactivated()
        yield* touch(linked[0].id)
        return { user: { ...linked[0], last_login: now }, outcome: "signed_in" } satisfies Provisioned as Provisioned
      }
      const byEmail = yield* sql`
        SELECT u.*, EXISTS (SELECT 1 FROM user_identities i WHERE i.user_id = u.id AND i.provider_id = ${provider.id}) AS other_identity
        FROM users u WHERE lower(u.email) = lower(${identity.email})`.pipe(UsersWithIdentity)
      if (byEmail.length > 0) {
        const { other_identity, ...user } = byEmail[0]
        if (other_identity) return yield* SsoErrors.identityConflict()
        if (Number(user.delete_at) > 0) return yield* SsoErrors.deactivated()
        yield* link(user.id)
        yield* touch(user.id)
        return { user: { ...user, last_login: now }, outcome: "linked" } satisfies Provisioned as Provisioned
      }
      if (!provider.auto_provision) return yield* SsoErrors.noAccount()

      const role = roleFor(provider, identity.groups)
      const { first, last } = splitName(identity)
      const base = usernameBase({ preferredUsername: identity.preferredUsername, name: identity.name, email: identity.email })
      let created: UserRow | undefined
      for (let attempt = 0; created === undefined; attempt++) {
        const username = yield* freeUsername(base)
        const inserted = yield* repo.insert({
          id: newId(),
          now,
          username,
          email: identity.email,
          passwordHash: "",
          emailVerified: true,
          firstName: first.slice(0, 64),
          lastName: last.slice(0, 64),
          nickname: "",
          locale: "en",
          authService: AUTH_SERVICE[provider.provider_type],
          authData: null,
          notifyProps: { ...DEFAULT_NOTIFY_PROPS, first_name: "false" }
        }).pipe(
          // Another sign-up took the name between the check and the insert: try the next free one.
          Effect.map(Option.some),
          Effect.catchIf((e) => e === "username_exists" && attempt < INSERT_ATTEMPTS, () => Effect.succeed(Option.none<UserRow>())),
          Effect.catchIf((e) => e === "email_exists", () => SsoErrors.noAccount()),
          Effect.catchIf((e) => e === "username_exists", () => SsoErrors.noAccount())
        )
        if (Option.isSome(inserted)) created = inserted.value
      }
      // The server's first user is its system admin whatever the provider says; everyone else gets the mapped role.
      const roles = created.roles.includes("system_admin") ? created.roles : mattermostRoles(role)
      const updated = yield* sql`
        UPDATE users SET roles = ${roles}, last_login = ${now},
          props = props || ${JSON.stringify({ sso_role: created.roles.includes("system_admin") ? "system_admin" : role })}::jsonb
        WHERE id = ${created.id} RETURNING *`.pipe(Users)
      yield* link(created.id)
      return { user: updated[0], outcome: "created" } satisfies Provisioned as Provisioned
    }))
    // Written with this transaction's own SQL (last login, roles, props): every node's cached row is now stale.
    yield* repo.changed(result.user.id)
    if (result.outcome === "created") {
      const bus = yield* EventBus
      yield* bus.publish(DomainEvent.NewUser({ userId: result.user.id }), {})
    }
    return result
  })
