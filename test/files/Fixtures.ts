import pg from "pg"

/**
 * Direct access to a test server's database, for what the API does not expose: server_config sections, row counts
 * that prove nothing was written, and timestamps a test needs in the past.
 */
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
}
