/**
 * The bare baselines the service is compared with (bench/ratios.ts and bench/pagescale.ts start it in its own process):
 * - me: node:http answering the same JSON body as the service's GET /api/v4/users/me (BARE_BODY), no database;
 * - page: node:http + pg running one SELECT of a channel's 61 newest posts, answered as a Mattermost post list;
 * - statement: node:http + pg running, as a named prepared statement, the statement the service sent for a request
 *   (bench/pagescale.ts passes the page's, recorded by bench/CaptureStatements.ts: BARE_STATEMENT_FILE holds a JSON
 *   object { text, values }), answered with its rows as JSON: what the service costs above it is its own JavaScript;
 * - post: node:http + pg running one INSERT of the posted message, answered with the post.
 * No authentication, no logging, no metrics: what the service costs above these is its per-request overhead.
 */
import { readFileSync } from "node:fs"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import pg from "pg"
import { newId } from "../layers/Crypto.ts"
import { BARE_COLUMNS, BARE_PAGE_SELECT } from "./BarePage.ts"

const kind = process.env.BARE_KIND ?? "me"
const port = Number(process.env.BARE_PORT ?? 0)
const pool = kind === "me" ? undefined : new pg.Pool({ connectionString: process.env.BARE_DATABASE_URL, max: Number(process.env.BARE_POOL ?? 10) })
const channelId = process.env.BARE_CHANNEL_ID ?? ""
const userId = process.env.BARE_USER_ID ?? ""
const meBody = process.env.BARE_BODY ?? "{}"
const statement = kind === "statement"
  ? JSON.parse(readFileSync(process.env.BARE_STATEMENT_FILE ?? "", "utf8")) as { text: string; values: Array<unknown> }
  : undefined

type Row = Record<string, unknown> & { id: string; create_at: string; update_at: string; edit_at: string; delete_at: string }

const wire = (row: Row) => ({
  ...row,
  create_at: Number(row.create_at),
  update_at: Number(row.update_at),
  edit_at: Number(row.edit_at),
  delete_at: Number(row.delete_at),
  reply_count: 0,
  last_reply_at: 0,
  participants: null,
  metadata: { embeds: [], emojis: [], files: [], images: {}, reactions: [], acknowledgements: [] }
})

const send = (res: ServerResponse, status: number, body: string) => {
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body) })
  res.end(body)
}

const readBody = async (req: IncomingMessage) => {
  let body = ""
  for await (const chunk of req) body += String(chunk)
  return body
}

const handle = async (req: IncomingMessage, res: ServerResponse) => {
  if (req.url === "/ready") return send(res, 200, "{}")
  if (kind === "me") return send(res, 200, meBody)
  if (statement !== undefined) {
    const { rows } = await pool!.query({ name: "statement", text: statement.text, values: statement.values })
    return send(res, 200, JSON.stringify(rows))
  }
  if (kind === "page") {
    const { rows } = await pool!.query<Row>({
      name: "page",
      text: BARE_PAGE_SELECT,
      values: [channelId]
    })
    const page = rows.slice(0, 60)
    const posts: Record<string, unknown> = {}
    for (const row of page) posts[row.id] = wire(row)
    return send(res, 200, JSON.stringify({
      order: page.map((r) => r.id),
      posts,
      next_post_id: "",
      prev_post_id: rows[60]?.id ?? "",
      has_next: rows.length > 60
    }))
  }
  const input = JSON.parse(await readBody(req)) as { channel_id: string; message: string }
  const at = Date.now()
  const { rows } = await pool!.query<Row>({
    name: "insert",
    text: `INSERT INTO posts (id, create_at, update_at, user_id, channel_id, message) VALUES ($1, $2, $2, $3, $4, $5) RETURNING ${BARE_COLUMNS}`,
    values: [newId(), at, userId, input.channel_id, input.message]
  })
  return send(res, 201, JSON.stringify(wire(rows[0])))
}

createServer((req, res) => {
  handle(req, res).catch((error) => send(res, 500, JSON.stringify({ message: String(error) })))
}).listen(port, "127.0.0.1")

process.on("SIGTERM", () => process.exit(0))
