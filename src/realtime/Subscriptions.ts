import type { Broadcast } from "../events/EventBus.ts"
import type { Connection } from "./Connection.ts"

/**
 * What each locally connected user receives: their channels and teams, indexed both ways so that delivering a
 * channel event touches only that channel's local members. State is per user (all of a user's connections share
 * one membership), loaded once when their first connection arrives and then kept current by membership events.
 */
const NONE: ReadonlyArray<string> = []

/**
 * The array plus one item, allocated at its exact length: `push` and spreading leave room for 16 more elements
 * (about 130 bytes), and the arrays here are held per idle user.
 */
const withItem = <A>(items: ReadonlyArray<A>, item: A): Array<A> => {
  const next = new Array<A>(items.length + 1)
  for (let i = 0; i < items.length; i++) next[i] = items[i]
  next[items.length] = item
  return next
}

/** The array without one item, at its exact length. */
const withoutItem = <A>(items: ReadonlyArray<A>, item: A): Array<A> => {
  const next = new Array<A>(items.length - 1)
  let j = 0
  for (const other of items) if (other !== item) next[j++] = other
  return next
}

/**
 * A user's channel or team ids: an exactly sized array while small (most users are in a few dozen), a Set past that.
 * A Set's smallest table takes well over a hundred bytes, an array of one id about fifty, and each idle socket's
 * user holds two of these.
 */
export type Ids = ReadonlyArray<string> | Set<string>
const SMALL_MAX = 32

const hasId = (ids: Ids, id: string) => Array.isArray(ids) ? ids.includes(id) : (ids as Set<string>).has(id)

const withId = (ids: Ids, id: string): Ids => {
  if (!Array.isArray(ids)) return (ids as Set<string>).add(id)
  if (ids.includes(id)) return ids
  return ids.length < SMALL_MAX ? withItem(ids, id) : new Set(ids).add(id)
}

const withoutId = (ids: Ids, id: string): Ids => {
  if (!Array.isArray(ids)) {
    ;(ids as Set<string>).delete(id)
    return ids
  }
  if (!ids.includes(id)) return ids
  return ids.length === 1 ? NONE : withoutItem(ids, id)
}

export class UserSubscriptions {
  /**
   * An array, not a Set: a user has one or two connections, and a Set's smallest table is several times larger.
   * Replaced, never changed in place, so that a delivery iterating it is not disturbed.
   */
  connections: ReadonlyArray<Connection> = []
  channels: Ids = NONE
  teams: Ids = NONE
  constructor(readonly userId: string) {}
}

/**
 * The local members of one channel or team. It also holds the id itself, so that every user's set refers to this
 * one string instead of the copy each database row brought (about 50 bytes per id per user).
 */
class Members extends Set<UserSubscriptions> {
  constructor(readonly id: string) {
    super()
  }
}

/** Adds the user to the index under `key` and returns the interned id. */
const addTo = (index: Map<string, Members>, key: string, user: UserSubscriptions) => {
  let members = index.get(key)
  if (members === undefined) index.set(key, members = new Members(key))
  members.add(user)
  return members.id
}

const removeFrom = (index: Map<string, Members>, key: string, user: UserSubscriptions) => {
  const members = index.get(key)
  if (members === undefined) return
  members.delete(user)
  if (members.size === 0) index.delete(key)
}

export class Subscriptions {
  readonly users = new Map<string, UserSubscriptions>()
  private readonly byChannel = new Map<string, Members>()
  private readonly byTeam = new Map<string, Members>()

  user(userId: string) {
    return this.users.get(userId)
  }

  /** Registers a user's memberships (their first connection on this node). */
  addUser(userId: string, channels: Iterable<string>, teams: Iterable<string>) {
    const existing = this.users.get(userId)
    if (existing !== undefined) return existing
    const user = new UserSubscriptions(userId)
    this.users.set(userId, user)
    for (const c of channels) this.addChannel(userId, c)
    for (const t of teams) this.addTeam(userId, t)
    return user
  }

  attach(connection: Connection) {
    const user = this.users.get(connection.userId)
    if (user !== undefined && !user.connections.includes(connection)) user.connections = withItem(user.connections, connection)
  }

  /** Forgets the connection, and the user with their memberships once they have none left here. */
  detach(connection: Connection) {
    const user = this.users.get(connection.userId)
    if (user === undefined) return
    if (user.connections.includes(connection)) user.connections = withoutItem(user.connections, connection)
    if (user.connections.length > 0) return
    for (const c of user.channels) removeFrom(this.byChannel, c, user)
    for (const t of user.teams) removeFrom(this.byTeam, t, user)
    this.users.delete(user.userId)
  }

  addChannel(userId: string, channelId: string) {
    const user = this.users.get(userId)
    if (user === undefined || channelId === "") return
    user.channels = withId(user.channels, addTo(this.byChannel, channelId, user))
  }

  removeChannel(userId: string, channelId: string) {
    const user = this.users.get(userId)
    if (user === undefined) return
    user.channels = withoutId(user.channels, channelId)
    removeFrom(this.byChannel, channelId, user)
  }

  addTeam(userId: string, teamId: string) {
    const user = this.users.get(userId)
    if (user === undefined || teamId === "") return
    user.teams = withId(user.teams, addTo(this.byTeam, teamId, user))
  }

  removeTeam(userId: string, teamId: string) {
    const user = this.users.get(userId)
    if (user === undefined) return
    user.teams = withoutId(user.teams, teamId)
    removeFrom(this.byTeam, teamId, user)
  }

  hasChannel(userId: string, channelId: string) {
    const user = this.users.get(userId)
    return user !== undefined && hasId(user.channels, channelId)
  }

  knowsChannel(channelId: string) {
    return this.byChannel.has(channelId)
  }

  /**
   * The users an event is for, in Mattermost's order of precedence (8.8): one user, else a channel's members, else
   * a team's members, else everybody. Omitted users and connections are filtered by the caller.
   */
  audience(broadcast: Broadcast): Iterable<UserSubscriptions> {
    if (broadcast.user_id !== "") {
      const user = this.users.get(broadcast.user_id)
      return user === undefined ? [] : [user]
    }
    if (broadcast.channel_id !== "") return this.byChannel.get(broadcast.channel_id) ?? []
    if (broadcast.team_id !== "") return this.byTeam.get(broadcast.team_id) ?? []
    return this.users.values()
  }
}
