/**
 * The load simulation's data (bench/load.ts, bench/page-cpu.ts): N users in one team, channels of 50-200 members,
 * each user in `channelsPerUser` of them, POSTS_PER_CHANNEL posts in each channel, and a session token per user.
 */
import pg from "pg"
import { newId } from "../layers/Crypto.ts"
import { sessionTokens } from "./lib.ts"

export const POSTS_PER_CHANNEL = 100

export const shuffle = <A>(items: Array<A>) => {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1))
    ;[items[i], items[j]] = [items[j], items[i]]
  }
  return items
}

export interface User {
  readonly id: string
  readonly token: string
  readonly channels: Array<string>
  current: string
}

/**
 * Users, one team, channels of 50-200 members: `channelsPerUser` passes over the users in a new random order, each
 * pass cut into channels of random size, so every user is in exactly that many channels. Bulk SQL, then ANALYZE.
 */
export const seed = async (databaseUrl: string, count: number, channelsPerUser: number) => {
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  const at = Date.now() - 86_400_000
  const userIds = Array.from({ length: count }, () => newId())
  const teamId = newId()
  await client.query(`INSERT INTO teams (id, create_at, update_at, name, display_name, type) VALUES ($1, $2, $2, 'load', 'Load', 'O')`, [teamId, at])
  for (let i = 0; i < count; i += 2000) {
    const batch = userIds.slice(i, i + 2000)
    await client.query(
      `INSERT INTO users (id, create_at, update_at, username, email)
       SELECT u.id, $2, $2, 'load' || (u.n + $3), 'load' || (u.n + $3) || '@load.test' FROM unnest($1::text[]) WITH ORDINALITY AS u(id, n)`,
      [batch, at, i]
    )
    await client.query(`INSERT INTO team_members (team_id, user_id, roles, create_at) SELECT $1, id, 'team_user', $2 FROM unnest($3::text[]) AS id`, [teamId, at, batch])
  }
  const membership = new Map<string, Array<string>>(userIds.map((id) => [id, []]))
  const channels: Array<{ id: string; members: Array<string> }> = []
  for (let pass = 0; pass < channelsPerUser; pass++) {
    const order = shuffle([...userIds])
    for (let i = 0; i < order.length;) {
      const size = Math.min(order.length - i, 50 + Math.floor(Math.random() * 151))
      const members = order.slice(i, i + size)
      // A short tail joins the previous channel of this pass rather than making a channel under 50.
      if (size < 50 && channels.length > 0) channels[channels.length - 1].members.push(...members)
      else channels.push({ id: newId(), members })
      i += size
    }
  }
  for (const channel of channels) {
    await client.query(
      `INSERT INTO channels (id, create_at, update_at, team_id, type, name, display_name, last_post_at, last_root_post_at, total_msg_count, total_msg_count_root)
       VALUES ($1, $2, $2, $3, 'O', $4, $4, $5, $5, $6, $6)`,
      [channel.id, at, teamId, `load-${channel.id}`, at + POSTS_PER_CHANNEL * 1000, POSTS_PER_CHANNEL]
    )
    const members = [...new Set(channel.members)]
    await client.query(`INSERT INTO channel_members (channel_id, user_id, roles) SELECT $1, id, 'channel_user' FROM unnest($2::text[]) AS id`, [channel.id, members])
    for (const m of members) membership.get(m)!.push(channel.id)
  }
  await client.query(
    `INSERT INTO posts (id, create_at, update_at, user_id, channel_id, message)
     SELECT substr(md5(random()::text || c.id || i::text), 1, 26), $1::bigint + i * 1000, $1::bigint + i * 1000,
            (SELECT user_id FROM channel_members m WHERE m.channel_id = c.id LIMIT 1), c.id, 'seeded message ' || i
     FROM channels c, generate_series(1, $2::int) AS i`,
    [at, POSTS_PER_CHANNEL]
  )
  await client.query("ANALYZE")
  const tokens = await sessionTokens(client, userIds)
  await client.end()
  const users: Array<User> = userIds.map((id, i) => {
    const mine = membership.get(id)!
    return { id, token: tokens[i], channels: mine, current: mine[0] }
  })
  return { users, channels: channels.length }
}
