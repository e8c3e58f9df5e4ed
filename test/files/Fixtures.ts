import pg from "pg"
import { randomBytes } from "node:crypto"

/**
 * Teams, channels and posts written straight into a test server's database, for the files, emoji and search tests:
 * those features read these tables, and seeding them here keeps the tests independent of how other features create
 * them. Users are always made through Client4 (`newUser`).
 */
export const fixtureId = () => {
  const alphabet = "abcdefghijkmnopqrstuvwxyz0123456789"
  return Array.from(randomBytes(26), (b) => alphabet[b % alphabet.length]).join("")
}

export class Fixtures {
  private constructor(private readonly client: pg.Client) {}

  static async open(databaseUrl: string) {
    const client = new pg.Client({ connectionString: databaseUrl })
    await client.connect()
    return new Fixtures(client)
  }

  close() {
    return this.client.end()
  }

  query<R extends pg.QueryResultRow = pg.QueryResultRow>(text: string, values: ReadonlyArray<unknown> = []) {
    return this.client.query<R>(text, values as Array<unknown>)
  }

  async team(memberIds: ReadonlyArray<string>, name = `team-${fixtureId().slice(0, 8)}`) {
    const id = fixtureId()
    await this.query(
      `INSERT INTO teams (id, create_at, update_at, display_name, name, type) VALUES ($1, 1, 1, $2, $2, 'O')`,
      [id, name]
    )
    for (const userId of memberIds) await this.addTeamMember(id, userId)
    return id
  }

  addTeamMember(teamId: string, userId: string) {
    return this.query(
      `INSERT INTO team_members (team_id, user_id, roles, create_at) VALUES ($1, $2, 'team_user', 1) ON CONFLICT DO NOTHING`,
      [teamId, userId]
    )
  }

  async channel(teamId: string, memberIds: ReadonlyArray<string>, options: { type?: "O" | "P" | "D" | "G"; name?: string; deleteAt?: number } = {}) {
    const id = fixtureId()
    const name = options.name ?? `chan-${id.slice(0, 8)}`
    await this.query(
      `INSERT INTO channels (id, create_at, update_at, delete_at, team_id, type, display_name, name)
       VALUES ($1, 1, 1, $2, $3, $4, $5, $5)`,
      [id, options.deleteAt ?? 0, teamId, options.type ?? "O", name]
    )
    for (const userId of memberIds) await this.addChannelMember(id, userId)
    return id
  }

  addChannelMember(channelId: string, userId: string) {
    return this.query(
      `INSERT INTO channel_members (channel_id, user_id, roles) VALUES ($1, $2, 'channel_user') ON CONFLICT DO NOTHING`,
      [channelId, userId]
    )
  }

  async post(channelId: string, userId: string, message: string, options: { createAt?: number; hashtags?: string; deleteAt?: number } = {}) {
    const id = fixtureId()
    const at = options.createAt ?? Date.now()
    await this.query(
      `INSERT INTO posts (id, create_at, update_at, delete_at, user_id, channel_id, message, hashtags)
       VALUES ($1, $2, $2, $3, $4, $5, $6, $7)`,
      [id, at, options.deleteAt ?? 0, userId, channelId, message, options.hashtags ?? ""]
    )
    return id
  }

  /** What POST /posts does with file_ids: the files become the post's. */
  attachFiles(postId: string, fileIds: ReadonlyArray<string>) {
    return this.query(`UPDATE file_infos SET post_id = $1 WHERE id = ANY($2)`, [postId, fileIds])
  }
}
