import type { Channel } from "@mattermost/types/channels"
import type { Post } from "@mattermost/types/posts"
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { raw } from "../compat/Raw.ts"
import { newUser, unique } from "../support/Clients.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"
import { type EventLog, recordEvents } from "../teams/EventLog.ts"
import { eventually } from "../webhooks/Receiver.ts"

/**
 * Link previews (issue 28) through Client4 against loopback pages: a post's first link gets Mattermost's
 * `metadata.embeds` and `metadata.images` in the background (then post_edited), POST /opengraph answers the same
 * data, one fetch per URL (the page server counts requests), the SSRF guard (127.0.0.2 stands for the server's own
 * network and is not allowed), the size and time limits, the author's removal, and the EnableLinkPreviews switch.
 */

interface PageServer {
  readonly origin: string
  readonly hits: Map<string, number>
  /** Paths whose request the client gave up on (the connection closed before the answer). */
  readonly abandoned: Set<string>
  readonly close: () => Promise<void>
}

const page = (title: string, description: string, image: string) => `<!doctype html><html><head>
<meta charset="utf-8"><title>ignored</title>
<meta property="og:type" content="article">
<meta property="og:title" content="${title}">
<meta property="og:description" content="${description}">
<meta property="og:site_name" content="Loopback News">
<meta property="og:image" content="${image}">
<meta property="og:image:type" content="image/png">
<meta property="og:image:width" content="640">
<meta property="og:image:height" content="480">
</head><body><meta property="og:title" content="not in the head"></body></html>`

const startPages = (host: string): Promise<PageServer> =>
  new Promise((resolve) => {
    const hits = new Map<string, number>()
    const abandoned = new Set<string>()
    const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
      const path = req.url ?? "/"
      hits.set(path, (hits.get(path) ?? 0) + 1)
      if (path.startsWith("/slow")) {
        // Never answers: the fetch must give up by itself.
        res.on("close", () => abandoned.add(path))
        return
      }
      if (path.startsWith("/huge")) {
        const body = `<html><head><meta property="og:title" content="huge"></head><body>${"x".repeat(3 * 1024 * 1024)}</body></html>`
        res.writeHead(200, { "content-type": "text/html" }).end(body)
        return
      }
      const name = path.slice(1).split("?")[0]
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" })
        .end(page(`Title of ${name}`, `About ${name} &amp; more`, "/images/cover.png"))
    })
    server.listen(0, host, () => {
      const { port } = server.address() as AddressInfo
      resolve({ origin: `http://${host}:${port}`, hits, abandoned, close: () => new Promise((r) => server.close(() => r())) })
    })
  })

let server: TestServer
let pages: PageServer
let internal: PageServer
let log: EventLog
let admin: Awaited<ReturnType<typeof newUser>>
let alice: Awaited<ReturnType<typeof newUser>>
let channel: Channel

beforeAll(async () => {
  pages = await startPages("127.0.0.1")
  internal = await startPages("127.0.0.2")
  server = await startServer({ env: { SERVICE_ALLOW_INTERNAL_CONNECTIONS: "127.0.0.1" } })
  admin = await newUser(server.url, "admin")
  alice = await newUser(server.url, "alice")
  const team = await admin.client.createTeam({ name: unique("links"), display_name: "Links", type: "O" } as never)
  await admin.client.addToTeam(team.id, alice.user.id)
  channel = await admin.client.createChannel({ team_id: team.id, name: unique("news"), display_name: "News", type: "O" } as Channel)
  await admin.client.addToChannel(alice.user.id, channel.id)
  log = await recordEvents(server)
})
afterAll(async () => {
  await log?.stop()
  await server?.close()
  await pages?.close()
  await internal?.close()
})

const say = (message: string, props: Record<string, unknown> = {}) =>
  alice.client.createPost({ channel_id: channel.id, message, props } as Post)

/** POST /api/v4/opengraph as the web app calls it (Client4 of this version has no method for it). */
const openGraph = (url: unknown) => raw(server.url, "/api/v4/opengraph", { method: "POST", token: alice.client.getToken(), body: { url } })

/** The post once its preview is there. */
const previewed = (id: string, timeoutMs = 5000) =>
  eventually(async () => {
    const post = await alice.client.getPost(id)
    return post.metadata.embeds !== undefined && post.metadata.embeds.length > 0 ? post : undefined
  }, `the preview of post ${id}`, timeoutMs)

/** A post with a link to a working page, previewed: once it is, every fetch queued before it has ended. */
const barrier = async () => previewed((await say(`and now ${pages.origin}/${unique("barrier")}`)).id)

/** Posts the preview worker skipped because link previews were off, from the service's metrics. */
const skipped = async () => {
  const text = await (await fetch(`${server.url}/api/v1/health/metrics`)).text()
  return Number(/service_link_preview_posts_total\{outcome="disabled"\} (\d+)/.exec(text)?.[1] ?? 0)
}

describe("link previews", () => {
  it("a post's first link gets Mattermost's opengraph embed and image metadata in the background, announced by post_edited", async () => {
    const url = `${pages.origin}/first`
    const created = await say(`look at ${url}, and ${pages.origin}/second too`)
    // POST /posts answers before the page is fetched.
    expect(created.metadata.embeds ?? []).toEqual([])
    const post = await previewed(created.id)
    const image = `${pages.origin}/images/cover.png`
    expect(post.metadata.embeds).toEqual([{
      type: "opengraph",
      url,
      data: {
        type: "article",
        url,
        title: "Title of first",
        description: "About first & more",
        site_name: "Loopback News",
        images: [{ url: image, type: "image/png", width: 640, height: 480 }]
      }
    }])
    expect(post.metadata.images).toEqual({ [image]: { width: 640, height: 480, format: "png", frame_count: 0 } })
    expect(post.update_at).toBeGreaterThan(created.update_at)
    expect(pages.hits.get("/second")).toBeUndefined()
    const edited = await eventually(() =>
      log.named("post_edited").map((e) => JSON.parse(e.data.post as string) as Post).find((p) => p.id === created.id), "post_edited")
    expect(edited.metadata.embeds).toEqual(post.metadata.embeds)
    // Channel pages carry it too.
    const list = await alice.client.getPosts(channel.id, 0, 10)
    expect(list.posts[created.id].metadata.images).toEqual(post.metadata.images)
  })

  it("POST /opengraph answers the page's OpenGraph data; a page without any answers an empty url; bad input is a 400", async () => {
    const url = `${pages.origin}/direct`
    const answer = await openGraph(url)
    expect(answer.status).toBe(200)
    const data = answer.body
    expect(data).toMatchObject({ title: "Title of direct", description: "About direct & more", site_name: "Loopback News", type: "article", url })
    expect(data.images).toEqual([{ url: `${pages.origin}/images/cover.png`, type: "image/png", width: 640, height: 480 }])
    expect((await openGraph(`${internal.origin}/secret`)).body).toEqual({ url: "" })
    for (const bad of ["", "x".repeat(3000), 7]) {
      const refused = await openGraph(bad)
      expect(refused.status).toBe(400)
      expect(JSON.stringify(refused.body).length).toBeLessThan(1000)
    }
    expect((await openGraph("")).body.id).toBe("api.context.invalid_param.app_error")
    expect((await raw(server.url, "/api/v4/opengraph", { method: "POST", body: { url } })).status).toBe(401)
  })

  it("a URL is fetched once per node: two posts and an /opengraph call of the same link make one request", async () => {
    const path = `/${unique("shared")}`
    const one = await say(`${pages.origin}${path}`)
    const two = await say(`again: ${pages.origin}${path}`)
    await previewed(one.id)
    await previewed(two.id)
    expect((await openGraph(`${pages.origin}${path}`)).body.title).toBe(`Title of ${path.slice(1)}`)
    expect(pages.hits.get(path)).toBe(1)
  })

  it("a link to an internal address not allowed gets no preview and no request is made", async () => {
    const path = `/${unique("internal")}`
    const post = await say(`secret ${internal.origin}${path}`)
    await barrier()
    expect((await alice.client.getPost(post.id)).metadata.embeds ?? []).toEqual([])
    expect(internal.hits.get(path)).toBeUndefined()
  })

  it("a page larger than the cap, or one that does not answer in time, gets no preview; the post is unaffected", async () => {
    const huge = await say(`big ${pages.origin}/huge`)
    const slow = await say(`slow ${pages.origin}/slow`)
    expect(slow.message).toBe(`slow ${pages.origin}/slow`)
    await eventually(() => pages.abandoned.has("/slow"), "the slow page's request given up", 8000)
    await barrier()
    for (const id of [huge.id, slow.id]) {
      const post = await alice.client.getPost(id)
      expect(post.metadata.embeds ?? []).toEqual([])
      expect(post.message).toMatch(/^(big|slow) /)
    }
  }, 15000)

  it("a post whose author removed the preview (remove_link_preview) is not previewed, nor shown once removed later", async () => {
    const path = `/${unique("removed")}`
    const post = await say(`${pages.origin}${path}`, { remove_link_preview: "true" })
    await barrier()
    expect((await alice.client.getPost(post.id)).metadata.embeds ?? []).toEqual([])
    expect(pages.hits.get(path)).toBeUndefined()
    const later = await previewed((await say(`${pages.origin}/${unique("later")}`)).id)
    const patched = await alice.client.patchPost({ id: later.id, props: { remove_link_preview: "true" } } as unknown as Post)
    expect(patched.metadata.embeds ?? []).toEqual([])
    expect(patched.metadata.images ?? {}).toEqual({})
  })

  it("EnableLinkPreviews is on by default, reported, and switched off through the config: then nothing is fetched", async () => {
    expect((await alice.client.getClientConfig()).EnableLinkPreviews).toBe("true")
    expect((await admin.client.getConfig()).ServiceSettings.EnableLinkPreviews).toBe(true)
    const off = await admin.client.patchConfig({ ServiceSettings: { EnableLinkPreviews: false } } as never)
    expect(off.ServiceSettings.EnableLinkPreviews).toBe(false)
    expect((await alice.client.getClientConfig()).EnableLinkPreviews).toBe("false")
    const refused = await openGraph(`${pages.origin}/off`)
    expect([refused.status, refused.body.id]).toEqual([501, "api.post.link_preview_disabled.app_error"])
    expect(pages.hits.get("/off")).toBeUndefined()
    const before = await skipped()
    const path = `/${unique("off")}`
    const post = await say(`${pages.origin}${path}`)
    const after = await say(`${pages.origin}/${unique("after")}`)
    // The worker reads the switch for each post and counts the ones it skips.
    await eventually(async () => (await skipped()) >= before + 2, "both posts skipped")
    await admin.client.patchConfig({ ServiceSettings: { EnableLinkPreviews: true } } as never)
    await previewed((await say(`${pages.origin}/${unique("on-again")}`)).id)
    expect(pages.hits.get(path)).toBeUndefined()
    expect((await alice.client.getPost(post.id)).metadata.embeds ?? []).toEqual([])
    expect((await alice.client.getPost(after.id)).metadata.embeds ?? []).toEqual([])
  })
})
