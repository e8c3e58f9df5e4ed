import type { Channel } from "@mattermost/types/channels"
import type { Post } from "@mattermost/types/posts"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import sharp from "sharp"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { newUser, unique } from "../support/Clients.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"
import { type EventLog, recordEvents } from "../teams/EventLog.ts"
import { eventually } from "../webhooks/Receiver.ts"

/**
 * Link previews' pictures (issue 28) against a loopback host: a page that does not declare its image's size gets it
 * measured (fetched through the image proxy's guarded client, read by sharp) into `metadata.images`; a link to a
 * picture itself is an "image" embed with its size; an edit that changes the first link gets the new link's
 * preview, one that keeps it keeps the preview it had (each page fetched once).
 */

let server: TestServer
let site: { origin: string; hits: Map<string, number>; close: () => Promise<void> }
let log: EventLog
let alice: Awaited<ReturnType<typeof newUser>>
let channel: Channel

const page = (title: string, image: string) => `<!doctype html><html><head>
<meta property="og:title" content="${title}"><meta property="og:image" content="${image}"></head><body></body></html>`

beforeAll(async () => {
  const pictures: Record<string, { type: string; body: Buffer }> = {
    "/undeclared.png": { type: "image/png", body: await sharp({ create: { width: 300, height: 150, channels: 3, background: "#3366cc" } }).png().toBuffer() },
    "/photo.jpg": { type: "image/jpeg", body: await sharp({ create: { width: 120, height: 90, channels: 3, background: "#cc3333" } }).jpeg().toBuffer() }
  }
  const hits = new Map<string, number>()
  const http: Server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0]
    hits.set(path, (hits.get(path) ?? 0) + 1)
    const picture = pictures[path]
    if (picture !== undefined) return void res.writeHead(200, { "content-type": picture.type }).end(picture.body)
    if (path.startsWith("/page")) return void res.writeHead(200, { "content-type": "text/html" }).end(page(`Title of ${path.slice(1)}`, "/undeclared.png"))
    res.writeHead(404).end()
  })
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve))
  site = {
    origin: `http://127.0.0.1:${(http.address() as AddressInfo).port}`,
    hits,
    close: () => new Promise<void>((resolve) => { http.closeAllConnections(); http.close(() => resolve()) })
  }
  server = await startServer({ env: { SERVICE_ALLOW_INTERNAL_CONNECTIONS: "127.0.0.1" } })
  alice = await newUser(server.url, "alice")
  const team = await alice.client.createTeam({ name: unique("pics"), display_name: "Pictures", type: "O" } as never)
  channel = await alice.client.createChannel({ team_id: team.id, name: unique("pics"), display_name: "Pictures", type: "O" } as Channel)
  log = await recordEvents(server)
})
afterAll(async () => {
  await log?.stop()
  await server?.close()
  await site?.close()
})

const say = (message: string) => alice.client.createPost({ channel_id: channel.id, message } as Post)

const previewOf = (id: string, url: string) =>
  eventually(async () => {
    const post = await alice.client.getPost(id)
    return post.metadata.embeds?.[0]?.url === url ? post : undefined
  }, `the preview of ${url}`, 8000)

describe("link preview pictures", () => {
  it("measures a page's image when the page does not declare its size", async () => {
    const url = `${site.origin}/page-${unique("a")}`
    const post = await previewOf((await say(`see ${url}`)).id, url)
    const image = `${site.origin}/undeclared.png`
    expect(post.metadata.embeds?.[0]).toMatchObject({ type: "opengraph", url, data: { images: [{ url: image }] } })
    expect(post.metadata.images).toEqual({ [image]: { width: 300, height: 150, format: "png", frame_count: 0 } })
  })

  it("a link to a picture is an image embed with the picture's size", async () => {
    const url = `${site.origin}/photo.jpg`
    const post = await previewOf((await say(`look: ${url}`)).id, url)
    expect(post.metadata.embeds).toEqual([{ type: "image", url }])
    expect(post.metadata.images).toEqual({ [url]: { width: 120, height: 90, format: "jpeg", frame_count: 0 } })
  })

  it("an edit that changes the first link is previewed again; one that keeps it keeps its preview", async () => {
    const first = `${site.origin}/page-${unique("first")}`
    const second = `${site.origin}/page-${unique("second")}`
    const created = await say(`read ${first}`)
    await previewOf(created.id, first)
    const kept = await alice.client.patchPost({ id: created.id, message: `read ${first} (typo fixed)` } as Post)
    expect(kept.metadata.embeds?.[0]?.url).toBe(first)
    await alice.client.patchPost({ id: created.id, message: `no, read ${second}` } as Post)
    const edited = await previewOf(created.id, second)
    expect(edited.metadata.embeds?.[0]).toMatchObject({ type: "opengraph", data: { title: `Title of ${new URL(second).pathname.slice(1)}` } })
    // Clients learn of it through post_edited.
    await eventually(() => log.named("post_edited").map((e) => JSON.parse(e.data.post as string) as Post)
      .find((p) => p.id === created.id && p.metadata.embeds?.[0]?.url === second), "post_edited with the new preview")
    expect(site.hits.get(new URL(first).pathname)).toBe(1)
    expect(site.hits.get(new URL(second).pathname)).toBe(1)
  })
})
