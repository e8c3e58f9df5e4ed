import type { Broadcast } from "../events/EventBus.ts"
import type { Connection } from "./Connection.ts"

/**
 * What each locally connected user receives: their channels and teams, indexed both ways so that delivering a
 * channel event touches only that channel's local members. State is per user (all of a user's connections share
 * one membership), loaded once when their first connection arrives and then kept current by membership events.
 */
export class UserSubscriptions {
  /** An array, not a Set: a user has one or two connections, and a Set's smallest table is several times larger. */
  readonly connections: Array<Connection> = []
  readonly channels = new Set<string>()
  readonly teams = new Set<string>()
  constructor(readonly userId: string) {}
}

const addTo = <K, V>(index: Map<K, Set<V>>, key: K, value: V) => {
  let set = index.get(key)
  if (set === undefined) index.set(key, set = new Set())
  set.add(value)
}

const removeFrom = <K, V>(index: Map<K, Set<V>>, key: K, value: V) => {
  const set = index.get(key)
  if (set === undefined) return
  set.delete(value)
  if (set.size === 0) index.delete(key)
}

export class Subscriptions {
  readonly users = new Map<string, UserSubscriptions>()
  private readonly byChannel = new Map<string, Set<UserSubscriptions>>()
  private readonly byTeam = new Map<string, Set<UserSubscriptions>>()

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
    const connections = this.users.get(connection.userId)?.connections
    if (connections !== undefined && !connections.includes(connection)) connections.push(connection)
  }

  /** Forgets the connection, and the user with their memberships once they have none left here. */
  detach(connection: Connection) {
    const user = this.users.get(connection.userId)
    if (user === undefined) return
    const index = user.connections.indexOf(connection)
    if (index >= 0) user.connections.splice(index, 1)
    if (user.connections.length > 0) return
    for (const c of user.channels) removeFrom(this.byChannel, c, user)
    for (const t of user.teams) removeFrom(this.byTeam, t, user)
    this.users.delete(user.userId)
  }

  addChannel(userId: string, channelId: string) {
    const user = this.users.get(userId)
    if (user === undefined || channelId === "") return
    user.channels.add(channelId)
    addTo(this.byChannel, channelId, user)
  }

  removeChannel(userId: string, channelId: string) {
    const user = this.users.get(userId)
    if (user === undefined) return
    user.channels.delete(channelId)
    removeFrom(this.byChannel, channelId, user)
  }

  addTeam(userId: string, teamId: string) {
    const user = this.users.get(userId)
    if (user === undefined || teamId === "") return
    user.teams.add(teamId)
    addTo(this.byTeam, teamId, user)
  }

  removeTeam(userId: string, teamId: string) {
    const user = this.users.get(userId)
    if (user === undefined) return
    user.teams.delete(teamId)
    removeFrom(this.byTeam, teamId, user)
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
