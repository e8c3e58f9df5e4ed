import type { Browser, BrowserContext, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client4 } from "../support/Clients.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"
import { axeViolations } from "./support/Axe.ts"
import { haveChromium, launch, withScreenshots } from "./support/Chromium.ts"
import { createPeople, messages, signedInContext } from "./support/People.ts"

/**
 * Issue 28, reading: the channel view keeps the reader's place. Older (and newer) pages never move what is on screen
 * (the first visible post's top, sampled every frame while a page loads, moves by at most 2 px); a 5,000-post channel
 * read back over many pages keeps a bounded number of posts in the page; a permalink opens its channel around the
 * post (loaded both ways), centred and lit up, and "Copy link" gives it; a channel with more unread posts than a page
 * opens at a "New messages" line with the read posts above it loaded; a reload comes back to the same post, at the
 * same offset, with the same thread open; the date stays at the top while scrolling; "Jump to recent messages".
 * bob writes through the API; ann reads in Chromium.
 */
let server: TestServer
let browser: Browser
let closeBrowser: () => Promise<void>
let context: BrowserContext
let ann: Page
let apis: Record<string, ReturnType<typeof client4>>
let ids: Record<string, string>
let teamId = ""
const channelIds: Record<string, string> = {}

/**
 * One post by bob; a connection dropped under load (the machine is shared) is retried with the same pending_post_id,
 * which the server answers with the post already made rather than a second one.
 */
const postAsBob = async (channelId: string, message: string, pending: string) => {
  for (let attempt = 1; ; attempt++) {
    try {
      return await apis.bob.createPost({ channel_id: channelId, message, pending_post_id: pending } as never)
    } catch (error) {
      if (attempt >= 4 || !String((error as { cause?: unknown })?.cause ?? error).match(/ECONNRESET|socket|fetch failed/)) throw error
    }
  }
}

/** n posts by bob, in parallel batches (the server orders them by arrival); every seventh is several lines tall. */
const seed = async (channel: string, n: number, label: string) => {
  const created: Array<string> = []
  for (let i = 0; i < n; i += 25) {
    const batch = await Promise.all(Array.from({ length: Math.min(25, n - i) }, (_, k) => {
      const at = i + k + 1
      const message = at % 7 === 0 ? `${label} ${at}\n\nwith a second paragraph\n\n- and\n- a list` : `${label} ${at}`
      return postAsBob(channelIds[channel], message, `${ids.bob}:${label}-${at}`)
    }))
    created.push(...batch.map((p) => p.id))
  }
  // ann has read them all (the first unread post is tested on its own).
  await apis.ann.viewMyChannel(channelIds[channel])
  return created
}

beforeAll(async () => {
  server = await startServer()
  ;({ apis, ids } = await createPeople(server.url, ["ann", "bob"]))
  teamId = (await apis.ann.createTeam({ name: "reads", display_name: "Reads", type: "O" } as never)).id
  await apis.ann.addToTeam(teamId, ids.bob)
  for (const name of ["long", "huge", "news", "quiet", "deep"]) {
    const c = await apis.ann.createChannel({ team_id: teamId, name, display_name: name[0].toUpperCase() + name.slice(1), type: "O" } as never)
    channelIds[name] = c.id
    await apis.ann.addToChannel(ids.bob, c.id)
  }
  await seed("long", 400, "long")
  if (!haveChromium) return
  ;({ browser, close: closeBrowser } = await launch())
  context = await signedInContext(browser, server.url, "ann")
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: server.url })
  ann = await context.newPage()
  ann.on("console", (m) => m.type() === "error" && console.log("browser console:", m.text()))
}, 180_000)

afterAll(async () => {
  await closeBrowser?.()
  await server?.close()
})

const step = (name: string, body: () => Promise<void>) => withScreenshots(name, () => (ann ? [ann] : []), body)
const list = () => messages(ann)
const articleIds = () => list().evaluate((el) => [...el.querySelectorAll<HTMLElement>("article[data-post-id]")].map((a) => a.dataset.postId!))

/** The first post whose bottom is below the list's top edge, and its top's offset from that edge. */
const firstVisible = () => list().evaluate((el) => {
  const edge = el.getBoundingClientRect().top
  const a = [...el.querySelectorAll<HTMLElement>("article[data-post-id]")].find((x) => x.getBoundingClientRect().bottom > edge)!
  return { id: a.dataset.postId!, top: a.getBoundingClientRect().top - edge }
})

/**
 * Scrolls to the top (or the bottom), then samples the post that was first visible there on every frame until posts
 * are added at that edge (the first, or last, post in the page changes) and three more frames have passed: the largest
 * distance that post moved from where it was, and how many posts the page then holds.
 */
const scrollOnePage = async (up = true) => {
  // One evaluation: the scroll event (and so the fetch) comes after this synchronous part has measured.
  await list().evaluate((el, up) => {
    const w = window as any
    el.scrollTop = up ? 0 : el.scrollHeight
    w.__shift = 0
    w.__settled = false
    const edge = () => el.getBoundingClientRect().top
    const items = () => [...el.querySelectorAll<HTMLElement>("article[data-post-id]")]
    const end = () => (up ? items()[0] : items()[items().length - 1]).dataset.postId
    const first = end()
    const anchor = items().find((x) => x.getBoundingClientRect().bottom > edge())!
    const id = anchor.dataset.postId
    const start = anchor.getBoundingClientRect().top - edge()
    let after = -1
    const sample = () => {
      const a = el.querySelector<HTMLElement>(`article[data-post-id="${id}"]`)
      w.__shift = Math.max(w.__shift, a ? Math.abs(a.getBoundingClientRect().top - edge() - start) : Infinity)
      if (end() !== first && after < 0) after = 0
      if (after >= 0 && ++after > 3) w.__settled = true
      else requestAnimationFrame(sample)
    }
    requestAnimationFrame(sample)
  }, up)
  await ann.waitForFunction(() => (window as any).__settled === true, undefined, { timeout: 20_000 })
  return { shift: await ann.evaluate(() => (window as any).__shift as number), count: (await articleIds()).length }
}
const scrollUpOnePage = () => scrollOnePage(true)

/** A channel's post ids, oldest first (two pages of 200). */
const oldestFirst = async (channel: string) => {
  const pages = await Promise.all([0, 1].map((page) => apis.ann.getPosts(channelIds[channel], page, 200)))
  return pages.flatMap((p) => p.order).reverse()
}

/** The post's box lies within the list's visible box. */
const inView = (postId: string) => list().evaluate((el, id) => {
  const a = el.querySelector(`article[data-post-id="${id}"]`)
  if (!a) return false
  const box = a.getBoundingClientRect()
  const view = el.getBoundingClientRect()
  return box.top >= view.top - 1 && box.bottom <= view.bottom + 1
}, postId)

describe.skipIf(!haveChromium)("reading a channel without losing one's place", () => {
  it("keeps the first visible post in place as older pages load, and the page light", async () => {
    await step("anchor", async () => {
      await ann.goto("/reads/channels/long")
      await list().getByText("long 400", { exact: true }).or(list().getByRole("article").last()).first().waitFor()
      const shifts: Array<number> = []
      const counts: Array<number> = []
      for (let i = 0; i < 6; i++) {
        const { shift, count } = await scrollUpOnePage()
        shifts.push(shift)
        counts.push(count)
      }

      console.log(`400-post channel: shift of the first visible post per older page (px): ${shifts.join(", ")}; posts in the page: ${counts.join(", ")}`)
      for (const s of shifts) expect(s, `shifts: ${shifts.join(", ")}`).toBeLessThanOrEqual(2)
      for (const c of counts) expect(c).toBeLessThanOrEqual(300)
      // Back to the top of the channel: its start is shown once every page is loaded.
      for (let i = 0; i < 6 && (await list().getByText("This is the start of the channel.").count()) === 0; i++) await scrollUpOnePage()
      await list().getByText("This is the start of the channel.").waitFor()
    })
  }, 120_000)

  it("reads a 5,000-post channel back and forth with a bounded page, the date on top and a way back to the present", async () => {
    const started = Date.now()
    const created = await seed("huge", 5000, "huge")
    console.log(`seeded 5,000 posts in ${Date.now() - started} ms`)
    await step("huge", async () => {
      await ann.goto("/reads/channels/huge")
      await list().locator(`article[data-post-id="${created[created.length - 1]}"]`).or(list().getByRole("article").last()).first().waitFor()
      const shifts: Array<number> = []
      const counts: Array<number> = []
      for (let i = 0; i < 15; i++) {
        const { shift, count } = await scrollOnePage(true)
        shifts.push(shift)
        counts.push(count)
      }
      // And back down through what was read (from memory): the posts dropped above do not move the view either.
      for (let i = 0; i < 4; i++) {
        const { shift, count } = await scrollOnePage(false)
        shifts.push(shift)
        counts.push(count)
      }
      console.log(`5,000-post channel: shifts (px) up then down: ${shifts.join(", ")}; posts in the page: ${counts.join(", ")}`)
      for (const s of shifts) expect(s, `shifts: ${shifts.join(", ")}`).toBeLessThanOrEqual(2)
      for (const c of counts) expect(c).toBeLessThanOrEqual(300)

      // The day's date stays at the top of the list while its posts scroll past.
      await list().evaluate((el) => (el.scrollTop = el.scrollHeight / 2))
      const today = list().getByRole("separator", { name: "Today" })
      await expect.poll(async () => {
        const [sep, view] = await Promise.all([today.boundingBox(), list().boundingBox()])
        return Math.abs(sep!.y - view!.y) <= 10
      }).toBe(true)
      expect(await today.evaluate((el) => getComputedStyle(el).position)).toBe("sticky")

      const jump = ann.getByRole("button", { name: "Jump to recent messages" })
      await jump.waitFor()
      expect(await axeViolations(ann)).toEqual([])
      await ann.screenshot({ path: "/tmp/reading-back-1280.png" })
      await jump.click()
      const newest = created.length ? (await apis.ann.getPosts(channelIds.huge, 0, 1)).order[0] : ""
      await expect.poll(() => inView(newest)).toBe(true)
      await jump.waitFor({ state: "hidden" })
      expect((await articleIds()).length).toBeLessThanOrEqual(300)
    })
  }, 240_000)

  it("opens a permalink around its post, lit up and centred, loads both ways, and copies a post's link", async () => {
    await step("permalink", async () => {
      const long = await oldestFirst("long")
      const target = long[100]
      await ann.goto(`/reads/pl/${target}`)
      await ann.waitForURL(/\/reads\/channels\/long$/)
      const post = list().locator(`article[data-post-id="${target}"]`)
      await post.waitFor()
      await expect.poll(() => inView(target)).toBe(true)
      await expect.poll(() => post.evaluate((el) => el === document.activeElement)).toBe(true)
      // Lit up, then not.
      await expect.poll(() => post.evaluate((el) => el.parentElement!.classList.contains("flash"))).toBe(true)
      await expect.poll(() => post.evaluate((el) => el.parentElement!.classList.contains("flash")), { timeout: 10_000 }).toBe(false)
      // Loaded both ways: posts before and after it, and not the channel's newest page.
      const shown = await articleIds()
      expect(shown).toContain(long[99])
      expect(shown).toContain(long[101])
      expect(shown.indexOf(long[99])).toBeLessThan(shown.indexOf(target))
      expect(shown).not.toContain(long[399])
      await ann.getByRole("button", { name: "Jump to recent messages" }).waitFor()
      // Scrolling down fetches the newer posts after the stretch, and the view holds.
      const { shift } = await scrollOnePage(false)
      expect(shift).toBeLessThanOrEqual(2)
      expect((await articleIds()).length).toBeGreaterThan(shown.length)

      await post.scrollIntoViewIfNeeded()
      await post.hover()
      await post.getByRole("button", { name: "More actions" }).click()
      await ann.getByRole("menuitem", { name: "Copy link" }).click()
      await expect.poll(() => ann.evaluate(() => navigator.clipboard.readText())).toBe(`${server.url}/reads/pl/${target}`)
    })
  }, 60_000)

  it("opens a channel at the first unread post under a \"New messages\" line, with what was read above it", async () => {
    await step("unread", async () => {
      await seed("news", 80, "read")
      const first = await apis.bob.createPost({ channel_id: channelIds.news, message: "the first unread one" } as never)
      for (let i = 0; i < 2; i++) {
        await Promise.all(Array.from({ length: 50 }, (_, k) => apis.bob.createPost({ channel_id: channelIds.news, message: `unread ${i * 50 + k}` } as never)))
      }
      const lastRead = (await apis.ann.getPostsBefore(channelIds.news, first.id, 0, 1)).order[0]
      await ann.goto("/reads/channels/news")
      const line = list().getByRole("separator", { name: "New messages" })
      await line.waitFor()
      await expect.poll(() => inView(first.id)).toBe(true)
      // The line sits right above the first unread post, the last read one just before it.
      expect(await line.evaluate((el) => el.parentElement!.querySelector("article")!.dataset.postId)).toBe(first.id)
      const shown = await articleIds()
      expect(shown.indexOf(lastRead)).toBe(shown.indexOf(first.id) - 1)
      expect(await axeViolations(ann)).toEqual([])
      await ann.screenshot({ path: "/tmp/reading-unread-1280.png" })
      // The channel is read now: opened again, no line.
      await ann.goto("/reads/channels/long")
      await list().getByRole("article").first().waitFor()
      await ann.goto("/reads/channels/news")
      await list().getByRole("article").first().waitFor()
      expect(await line.count()).toBe(0)
    })
  }, 90_000)

  it("comes back after a reload to the same post at the same offset, with the same thread open", async () => {
    await step("reload", async () => {
      await ann.goto("/reads/channels/long")
      await list().getByRole("article").first().waitFor()
      await scrollUpOnePage()
      await scrollUpOnePage()
      await list().evaluate((el) => (el.scrollTop += 700))
      const root = await firstVisible()
      const article = list().locator(`article[data-post-id="${root.id}"]`)
      await article.hover()
      await article.getByRole("button", { name: "Reply" }).click()
      await ann.getByRole("complementary", { name: "Thread" }).waitFor()
      await list().evaluate((el) => (el.scrollTop += 37))
      const before = await firstVisible()
      await expect.poll(() => ann.evaluate(() => sessionStorage.getItem("reading.place") ?? "")).toContain(before.id)
      await ann.reload()
      await ann.getByRole("complementary", { name: "Thread" }).waitFor()
      await list().locator(`article[data-post-id="${before.id}"]`).waitFor()
      await expect.poll(async () => {
        const after = await firstVisible()
        return after.id === before.id && Math.abs(after.top - before.top) <= 2
      }).toBe(true)
      expect(ann.url()).toBe(`${server.url}/reads/channels/long`)
    })
  }, 60_000)

  it("shows a permalink and the unread line at phone width", async () => {
    const phone = await signedInContext(browser, server.url, "ann", { width: 390, height: 844 })
    const page = await phone.newPage()
    try {
      await withScreenshots("phone", () => [page], async () => {
        const target = (await oldestFirst("long"))[150]
        await page.goto(`/reads/pl/${target}`)
        await page.waitForURL(/\/reads\/channels\/long$/)
        await messages(page).locator(`article[data-post-id="${target}"]`).waitFor()
        await page.getByRole("button", { name: "Jump to recent messages" }).waitFor()
        expect(await axeViolations(page)).toEqual([])
        await page.screenshot({ path: "/tmp/reading-permalink-390.png" })
      })
    } finally {
      await phone.close()
    }
  }, 60_000)

  it("shows the line above unread posts within the newest page without leaving the newest posts", async () => {
    await step("unread-recent", async () => {
      await seed("quiet", 20, "quiet")
      const fresh: Array<string> = []
      for (let i = 1; i <= 3; i++) fresh.push((await apis.bob.createPost({ channel_id: channelIds.quiet, message: `fresh ${i}` } as never)).id)
      await ann.goto("/reads/channels/quiet")
      const line = list().getByRole("separator", { name: "New messages" })
      await line.waitFor()
      expect(await line.evaluate((el) => el.parentElement!.querySelector("article")!.dataset.postId)).toBe(fresh[0])
      await expect.poll(() => inView(fresh[2])).toBe(true)
      expect(await ann.getByRole("button", { name: "Jump to recent messages" }).count()).toBe(0)
    })
  }, 60_000)

  it("opens a permalink to a reply: its root lit up in the channel, the reply in the thread", async () => {
    await step("permalink-reply", async () => {
      const roots = await seed("deep", 100, "deep")
      const rootId = (await oldestFirst("deep"))[10]
      expect(roots).toContain(rootId)
      const reply = await apis.bob.createPost({ channel_id: channelIds.deep, root_id: rootId, message: "an answer deep in history" } as never)
      await ann.goto(`/reads/pl/${reply.id}`)
      await ann.waitForURL(/\/reads\/channels\/deep$/)
      await ann.getByRole("complementary", { name: "Thread" }).getByText("an answer deep in history").waitFor()
      await expect.poll(() => inView(rootId)).toBe(true)
      await expect.poll(() => list().locator(`article[data-post-id="${rootId}"]`).evaluate((el) => el.parentElement!.classList.contains("flash"))).toBe(true)
    })
  }, 60_000)

  it("keeps the newest posts in view when a post grows after it is shown", async () => {
    await step("grow", async () => {
      await ann.goto("/reads/channels/quiet")
      const last = list().getByRole("article").last()
      await last.waitFor()
      await expect.poll(() => list().evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight)).toBeLessThan(2)
      // As an image or a link preview does when it loads: the post gets taller without the list rendering again.
      await last.evaluate((el) => ((el as HTMLElement).style.paddingBottom = "400px"))
      await expect.poll(() => list().evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight)).toBeLessThan(2)
    })
  }, 60_000)
})

