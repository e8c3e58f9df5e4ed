import { HttpRouter } from "@effect/platform"
import { Clock, Effect, Option, Schema } from "effect"
import { User, UserAutocomplete, UserIds, UsersByGroupChannel } from "../../schemas/wire/User.ts"
import { RoleNamesField, RoleNamesParam } from "../../schemas/users.ts"
import { Access } from "../access/Access.ts"
import type { Caller } from "../auth/Authenticate.ts"
import { authed, CurrentCaller } from "../auth/Guards.ts"
import { badRequest, forbidden, invalidParam, notFound, permissionDenied } from "../http/ApiError.ts"
import * as Decode from "../http/Decode.ts"
import { ok, respondWith, respondWithAll } from "../http/Respond.ts"
import { publishUserUpdated } from "./UserEvents.ts"
import * as UserAdmin from "./UserAdmin.ts"
import { UserDirectory } from "./UserDirectory.ts"
import { type UserChanges, UserRepo } from "./UserRepo.ts"
import { DEFAULT_NOTIFY_PROPS, type UserRow } from "./UserRow.ts"
import { toWire } from "./UserWire.ts"
import { selfOrAdminUserId, targetUserId } from "../access/UserParam.ts"
import * as LoginAttempts from "./LoginAttempts.ts"
import { isValidEmail, passwordProblem, usernameProblem } from "./Validation.ts"
import { isId } from "../../schemas/Params.ts"
import { ListOf, MaxItems, SearchLimits, TextOf } from "../../schemas/Limits.ts"
import { runtimeSettings } from "../system/RuntimeSettings.ts"

/** Users: lookups, lists, search and autocomplete under the visibility rule of UserDirectory; patch, activation, password. */

const viewerOf = (caller: Caller) => ({ userId: caller.userId, isSystemAdmin: caller.isSystemAdmin })
const wireAll = (caller: Caller, rows: ReadonlyArray<UserRow>) => rows.map((row) => toWire(row, viewerOf(caller)))

const userNotFound = () => notFound("app.user.missing_account.const", "Unable to find the user.")


const UsernameParams = Schema.Struct({ username: Schema.String })
const EmailParams = Schema.Struct({ email: Schema.String })
const IdsBody = ListOf(Decode.Id, MaxItems.userIds)
const UsernamesBody = ListOf(Schema.String, MaxItems.userIds)
const SinceQuery = Schema.Struct({ since: Decode.QueryInt(0, { min: 0 }) })

const visibleOne = (caller: Caller, by: { id?: string; username?: string; email?: string }) =>
  Effect.gen(function*() {
    const directory = yield* UserDirectory
    const found = yield* directory.find(caller, by)
    if (Option.isNone(found)) return yield* userNotFound()
    if (!found.value.visible) return yield* permissionDenied("this user")
    return found.value.row
  })

const getById = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const userId = yield* targetUserId
  return yield* respondWith(User, toWire(yield* visibleOne(caller, { id: userId }), viewerOf(caller)))
})

const getByUsername = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const { username } = yield* Decode.params(UsernameParams)
  return yield* respondWith(User, toWire(yield* visibleOne(caller, { username }), viewerOf(caller)))
})

/**
 * Emails are private (ShowEmailAddress is off), so only admins look users up by someone else's email; anyone else
 * is refused before the lookup, so that the answer never tells whether an address has an account.
 */
const getByEmail = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const { email } = yield* Decode.params(EmailParams)
  if (!caller.isSystemAdmin) {
    const self = yield* (yield* UserRepo).findById(caller.userId)
    if (Option.isNone(self) || self.value.email.toLowerCase() !== email.toLowerCase()) return yield* permissionDenied("this user's email")
  }
  return yield* respondWith(User, toWire(yield* visibleOne(caller, { email }), viewerOf(caller)))
})

const bulkBody = <A, I>(schema: Schema.Schema<ReadonlyArray<A>, I>, name: string) =>
  Effect.flatMap(Decode.body(schema), (items) =>
    items.length === 0
      ? Effect.fail(badRequest("api.context.invalid_body_param.app_error", `Expected between 1 and ${MaxItems.userIds} ${name}.`))
      : Effect.succeed(items))

const byIds = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const { since } = yield* Decode.query(SinceQuery)
  const ids = yield* bulkBody(IdsBody, "user ids")
  const directory = yield* UserDirectory
  const rows = yield* directory.byIds(caller, [...new Set(ids)], since > 0 ? since : undefined)
  return yield* respondWithAll(User, wireAll(caller, rows))
})

const byUsernames = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const names = yield* bulkBody(UsernamesBody, "usernames")
  const directory = yield* UserDirectory
  return yield* respondWithAll(User, wireAll(caller, yield* directory.byUsernames(caller, [...new Set(names)])))
})

/** An optional id in a query string; "" counts as absent. */
const OptionalId = Schema.optionalWith(
  Schema.Union(Schema.Literal(""), Decode.Id).pipe(Schema.transform(Schema.UndefinedOr(Schema.String), {
    strict: true,
    decode: (s) => (s === "" ? undefined : s),
    encode: (s) => s ?? ""
  })),
  { default: () => undefined }
)
/** Go's strconv.ParseBool truths: Client4 sends `without_team=1`. */
const Flag = Schema.optionalWith(
  Schema.transform(Schema.String, Schema.Boolean, {
    strict: true,
    decode: (s) => ["1", "t", "T", "true", "TRUE", "True"].includes(s),
    encode: (b) => (b ? "true" : "false")
  }),
  { default: () => false }
)

/** Membership filters name teams and channels; the caller must be allowed to see their members. */
const checkScopes = (caller: Caller, scopes: { inTeam?: string; notInTeam?: string; inChannel?: string; notInChannel?: string; withoutTeam?: boolean }) =>
  Effect.gen(function*() {
    const access = yield* Access
    for (const team of [scopes.inTeam, scopes.notInTeam]) if (team !== undefined) yield* access.team(caller, team)
    for (const channel of [scopes.inChannel, scopes.notInChannel]) if (channel !== undefined) yield* access.channel(caller, channel, "read")
    if (scopes.withoutTeam && !caller.isSystemAdmin) return yield* permissionDenied("users without a team")
  })

const ListQuery = Schema.Struct({
  in_team: OptionalId,
  not_in_team: OptionalId,
  in_channel: OptionalId,
  not_in_channel: OptionalId,
  without_team: Flag,
  active: Flag,
  inactive: Flag,
  role: Schema.optionalWith(Schema.String, { default: () => "" }),
  roles: RoleNamesParam,
  team_roles: RoleNamesParam,
  channel_roles: RoleNamesParam,
  sort: Schema.optionalWith(Schema.Literal("", "create_at", "last_activity_at", "status", "admin", "display_name"), { default: () => "" as const }),
  page: Decode.QueryInt(0, { min: 0, max: 100_000 }),
  per_page: Decode.QueryInt(60, { min: 1, max: 200 })
})

const list = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const q = yield* Decode.query(ListQuery)
  if (q.active && q.inactive) return yield* badRequest("api.context.invalid_param.app_error", "active and inactive cannot be combined.")
  const scopes = { inTeam: q.in_team, notInTeam: q.not_in_team, inChannel: q.in_channel, notInChannel: q.not_in_channel, withoutTeam: q.without_team }
  // The sorts Mattermost offers, each with the one scope it applies to (in_group's display_name sorts by username here).
  const teamAlone = q.in_team !== undefined && q.not_in_team === undefined && q.in_channel === undefined &&
    q.not_in_channel === undefined && !q.without_team
  if (((q.sort === "create_at" || q.sort === "last_activity_at") && !teamAlone) || ((q.sort === "status" || q.sort === "admin") && q.in_channel === undefined)) {
    return yield* badRequest(
      "api.context.invalid_url_param.app_error",
      `Invalid or missing sort in request URL: sort=${q.sort} needs ${q.sort === "status" || q.sort === "admin" ? "in_channel" : "in_team and no other member filter"}.`
    )
  }
  yield* checkScopes(caller, scopes)
  const directory = yield* UserDirectory
  const rows = yield* directory.list(caller, {
    ...scopes,
    active: q.active,
    inactive: q.inactive,
    role: q.role === "" ? undefined : q.role,
    roles: { system: q.roles, team: q.team_roles, channel: q.channel_roles },
    sort: q.sort === "display_name" ? "" : q.sort,
    page: q.page,
    perPage: q.per_page
  })
  return yield* respondWithAll(User, rows.map((row) => {
    const wire = toWire(row, viewerOf(caller))
    return q.sort === "last_activity_at" ? { ...wire, last_activity_at: Number(row.last_activity_at ?? 0) } : wire
  }))
})

const AutocompleteQuery = Schema.Struct({
  in_team: OptionalId,
  in_channel: OptionalId,
  name: Schema.optionalWith(TextOf(SearchLimits.userTermLength), { default: () => "" }),
  limit: Decode.QueryInt(100, { min: 1, max: 100 })
})

const autocomplete = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const q = yield* Decode.query(AutocompleteQuery)
  yield* checkScopes(caller, { inTeam: q.in_team, inChannel: q.in_channel })
  const directory = yield* UserDirectory
  const search = (scope: { inTeam?: string; inChannel?: string; notInChannel?: string }) =>
    directory.search(caller, { term: q.name, ...scope, withoutTeam: false, allowInactive: false, limit: q.limit })
  if (q.in_channel !== undefined) {
    const [inside, outside] = yield* Effect.all([
      search({ inChannel: q.in_channel }),
      search({ inTeam: q.in_team, notInChannel: q.in_channel })
    ])
    return yield* respondWith(UserAutocomplete, { users: wireAll(caller, inside), out_of_channel: wireAll(caller, outside) })
  }
  return yield* respondWith(UserAutocomplete, { users: wireAll(caller, yield* search({ inTeam: q.in_team })) })
})

const SearchBody = Schema.Struct({
  term: TextOf(SearchLimits.userTermLength),
  team_id: Schema.optional(Schema.String),
  not_in_team_id: Schema.optional(Schema.String),
  in_channel_id: Schema.optional(Schema.String),
  not_in_channel_id: Schema.optional(Schema.String),
  allow_inactive: Schema.optionalWith(Schema.Boolean, { default: () => false }),
  without_team: Schema.optionalWith(Schema.Boolean, { default: () => false }),
  role: Schema.optionalWith(Schema.String.pipe(Schema.maxLength(64)), { default: () => "" }),
  roles: RoleNamesField,
  team_roles: RoleNamesField,
  channel_roles: RoleNamesField,
  limit: Schema.optionalWith(Schema.Number.pipe(Schema.int(), Schema.between(1, 1000)), { default: () => 100 })
})

const idOrUndefined = (value: string | undefined, name: string) =>
  value === undefined || value === "" ? Effect.succeed(undefined) : isId(value) ? Effect.succeed(value) : invalidParam(name)

const search = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const body = yield* Decode.body(SearchBody)
  const scopes = {
    inTeam: yield* idOrUndefined(body.team_id, "team_id"),
    notInTeam: yield* idOrUndefined(body.not_in_team_id, "not_in_team_id"),
    inChannel: yield* idOrUndefined(body.in_channel_id, "in_channel_id"),
    notInChannel: yield* idOrUndefined(body.not_in_channel_id, "not_in_channel_id"),
    withoutTeam: body.without_team
  }
  yield* checkScopes(caller, scopes)
  const directory = yield* UserDirectory
  // allow_inactive is anyone's to ask, as in Mattermost (the DM picker lists deactivated people); visibility still holds.
  const rows = yield* directory.search(caller, {
    term: body.term,
    ...scopes,
    allowInactive: body.allow_inactive,
    role: body.role === "" ? undefined : body.role,
    roles: { system: body.roles, team: body.team_roles, channel: body.channel_roles },
    limit: body.limit
  })
  return yield* respondWithAll(User, wireAll(caller, rows))
})

const known = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const directory = yield* UserDirectory
  return yield* respondWith(UserIds, yield* directory.knownIds(caller))
})

const groupChannels = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const ids = yield* bulkBody(IdsBody, "channel ids")
  const directory = yield* UserDirectory
  const rows = yield* directory.groupChannelMembers(caller, [...new Set(ids)])
  const byChannel: Record<string, Array<ReturnType<typeof toWire>>> = {}
  for (const { channel_id, user } of rows) (byChannel[channel_id] ??= []).push(toWire(user, viewerOf(caller)))
  return yield* respondWith(UsersByGroupChannel, byChannel)
})

const Timezone = Schema.Struct({
  useAutomaticTimezone: Schema.optional(Schema.Union(Schema.String, Schema.Boolean)),
  automaticTimezone: Schema.optional(Schema.String),
  manualTimezone: Schema.optional(Schema.String)
})

const bounded = (max: number) => Schema.optional(Schema.String.pipe(Schema.maxLength(max)))

const PatchBody = Schema.Struct({
  username: Schema.optional(Schema.String),
  email: Schema.optional(Schema.String),
  nickname: bounded(64),
  first_name: bounded(64),
  last_name: bounded(64),
  position: bounded(128),
  locale: Schema.optional(Schema.String.pipe(Schema.pattern(/^[a-z]{2}([-_][A-Za-z]{2})?$/, { message: () => "expected a locale such as en or pt-BR" }))),
  timezone: Schema.optional(Timezone),
  props: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String })),
  notify_props: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String })),
  password: Schema.optional(Schema.String)
})

const patchUser = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const userId = yield* selfOrAdminUserId("this user")
  const input = yield* Decode.body(PatchBody)
  const repo = yield* UserRepo
  const existing = yield* repo.findById(userId)
  if (Option.isNone(existing)) return yield* userNotFound()
  const user = existing.value
  const changes: { -readonly [K in keyof UserChanges]: UserChanges[K] } = {}

  if (input.username !== undefined && input.username !== user.username) {
    const username = input.username.trim()
    if (user.auth_service !== "") {
      return yield* badRequest("api.user.patch_user.login_provider_attribute_set.app_error", "Users signed in with SSO cannot change their username.")
    }
    const problem = usernameProblem(username)
    if (problem !== undefined) return yield* badRequest("model.user.is_valid.username.app_error", problem)
    changes.username = username
  }
  if (input.email !== undefined && input.email.toLowerCase() !== user.email.toLowerCase()) {
    const email = input.email.trim()
    if (user.auth_service !== "") {
      return yield* badRequest("api.user.patch_user.login_provider_attribute_set.app_error", "Users signed in with SSO cannot change their email.")
    }
    if (!isValidEmail(email)) return yield* badRequest("model.user.is_valid.email.app_error", "Invalid email address.")
    // As Mattermost: changing one's own email needs the current password (a stolen session cannot take the account).
    if (!caller.isSystemAdmin) {
      const valid = input.password !== undefined && (yield* LoginAttempts.checkCurrentPassword(user, input.password))
      if (!valid) return yield* badRequest("api.user.check_user_password.invalid.app_error", "The password is incorrect.")
    }
    changes.email = email
  }
  if (input.nickname !== undefined) changes.nickname = input.nickname
  if (input.first_name !== undefined) changes.first_name = input.first_name
  if (input.last_name !== undefined) changes.last_name = input.last_name
  if (input.position !== undefined) changes.position = input.position
  if (input.locale !== undefined) changes.locale = input.locale
  if (input.timezone !== undefined) {
    const current = user.timezone ?? {}
    changes.timezone = {
      useAutomaticTimezone: String(input.timezone.useAutomaticTimezone ?? current.useAutomaticTimezone ?? "true"),
      automaticTimezone: input.timezone.automaticTimezone ?? current.automaticTimezone ?? "",
      manualTimezone: input.timezone.manualTimezone ?? current.manualTimezone ?? ""
    }
  }
  if (input.props !== undefined) changes.props = input.props
  if (input.notify_props !== undefined) changes.notify_props = { ...DEFAULT_NOTIFY_PROPS, ...input.notify_props }

  const now = yield* Clock.currentTimeMillis
  const updated = yield* repo.patch(userId, changes, now).pipe(
    Effect.catchIf((e) => e === "username_exists", () =>
      badRequest("app.user.save.username_exists.app_error", "An account with that username already exists.")),
    Effect.catchIf((e) => e === "email_exists", () =>
      badRequest("app.user.save.email_exists.app_error", "An account with that email already exists."))
  )
  if (Option.isNone(updated)) return yield* userNotFound()
  yield* publishUserUpdated(updated.value)
  return yield* respondWith(User, toWire(updated.value, viewerOf(caller)))
})

const ActiveBody = Schema.Struct({ active: Schema.Boolean })

const setActive = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const userId = yield* targetUserId
  const { active } = yield* Decode.body(ActiveBody)
  if (!caller.isSystemAdmin) return yield* forbidden("api.user.update_active.permissions.app_error", "You do not have permission to change a user's active status.")
  const now = yield* Clock.currentTimeMillis
  const updated = yield* UserAdmin.setActive(userId, active, now)
  if (Option.isNone(updated)) return yield* userNotFound()
  return ok()
})

const DeleteQuery = Schema.Struct({ permanent: Schema.optionalWith(Decode.QueryBool, { default: () => false }) })

/**
 * DELETE /users/{user_id}: Mattermost's deactivation (the account stays, its sessions end), by a system admin, or by
 * the user themselves where TeamSettings.EnableUserDeactivation allows it (off here, as the config document says).
 * `permanent=true` asks for ServiceSettings.EnableAPIUserDeletion, also off: refused as Mattermost refuses it, with
 * 403 rather than its 401 (a 401 signs the apps out; docs/compat.md).
 */
const deactivate = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const userId = yield* targetUserId
  const { permanent } = yield* Decode.query(DeleteQuery)
  if (!caller.isSystemAdmin) {
    if (userId !== caller.userId) return yield* permissionDenied()
    return yield* forbidden("api.user.update_active.not_enable.app_error", "You cannot deactivate yourself because this feature is not enabled. Please contact your System Administrator.")
  }
  if (Option.isNone(yield* (yield* UserRepo).findById(userId))) return yield* userNotFound()
  if (permanent) {
    return yield* forbidden("api.user.delete_user.not_enabled.app_error", "Permanent user deletion feature is not enabled. Please contact your System Administrator.")
  }
  const now = yield* Clock.currentTimeMillis
  const updated = yield* UserAdmin.setActive(userId, false, now)
  if (Option.isNone(updated)) return yield* userNotFound()
  return ok()
})

const PasswordBody = Schema.Struct({
  current_password: Schema.optionalWith(Schema.String, { default: () => "" }),
  new_password: Schema.String
})

const changePassword = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const userId = yield* selfOrAdminUserId("this user")
  const input = yield* Decode.body(PasswordBody)
  const repo = yield* UserRepo
  const existing = yield* repo.findById(userId)
  if (Option.isNone(existing)) return yield* userNotFound()
  const user = existing.value
  if (user.auth_service !== "") {
    return yield* badRequest("api.user.update_password.oauth.app_error", "Users signed in with SSO have no password to change.")
  }
  if (caller.userId === userId) {
    const valid = yield* LoginAttempts.checkCurrentPassword(user, input.current_password)
    if (!valid) return yield* badRequest("api.user.update_password.incorrect.app_error", "The \"Current Password\" you entered is incorrect.")
  }
  const weak = passwordProblem(input.new_password, (yield* runtimeSettings).password, user)
  if (weak !== undefined) return yield* badRequest(weak.id, weak.message)
  const now = yield* Clock.currentTimeMillis
  yield* UserAdmin.setPassword(userId, input.new_password, now, caller.session.id)
  return ok()
})

export const routes = HttpRouter.empty.pipe(
  HttpRouter.get("/api/v4/users", authed(list)),
  HttpRouter.post("/api/v4/users/ids", authed(byIds)),
  HttpRouter.post("/api/v4/users/usernames", authed(byUsernames)),
  HttpRouter.post("/api/v4/users/search", authed(search)),
  HttpRouter.get("/api/v4/users/autocomplete", authed(autocomplete)),
  HttpRouter.get("/api/v4/users/known", authed(known)),
  HttpRouter.post("/api/v4/users/group_channels", authed(groupChannels)),
  HttpRouter.get("/api/v4/users/username/:username", authed(getByUsername)),
  HttpRouter.get("/api/v4/users/email/:email", authed(getByEmail)),
  HttpRouter.get("/api/v4/users/:user_id", authed(getById)),
  HttpRouter.put("/api/v4/users/:user_id", authed(patchUser)),
  HttpRouter.del("/api/v4/users/:user_id", authed(deactivate)),
  HttpRouter.put("/api/v4/users/:user_id/patch", authed(patchUser)),
  HttpRouter.put("/api/v4/users/:user_id/active", authed(setActive)),
  HttpRouter.put("/api/v4/users/:user_id/password", authed(changePassword))
)
