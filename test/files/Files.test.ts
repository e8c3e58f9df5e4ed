import { existsSync, readdirSync } from "node:fs"
import { join } from "node:path"
import sharp from "sharp"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { newUser } from "../support/Clients.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"
import { expectShape, Wire } from "../compat/Shapes.ts"
import { Fixtures } from "./Fixtures.ts"

let server: TestServer
let db: Fixtures
type Member = Awaited<ReturnType<typeof newUser>>
let alice: Member
let bob: Member
let outsider: Member
let teamId: string
let channelId: string
let privateId: string

const png = (width: number, height: number) =>
  sharp({ create: { width, height, channels: 4, background: { r: 200, g: 30, b: 30, alpha: 0.6 } } }).png().toBuffer()

const blob = (bytes: Uint8Array | string, type = "application/octet-stream") => new Blob([bytes as BlobPart], { type })

const form = (entries: ReadonlyArray<[string, string] | [string, Blob, string]>) => {
  const data = new FormData()
  for (const entry of entries) {
    if (entry.length === 3) data.append(entry[0], entry[1], entry[2])
    else data.append(entry[0], entry[1])
  }
  return data
}

const raw = (path: string, token: string | undefined, init: RequestInit = {}) =>
  fetch(`${server.url}${path}`, {
    ...init,
    headers: { ...(token === undefined ? {} : { authorization: `Bearer ${token}` }), ...(init.headers as Record<string, string> ?? {}) }
  })

const tokenOf = (m: Member) => m.client.getToken()

const storedBlobs = () => {
  const root = join(server.config.dataDir, "files", "uploads")
  if (!existsSync(root)) return 0
  return readdirSync(root, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).length
}

const fileRows = async () => Number((await db.query<{ n: string }>("SELECT count(*) AS n FROM file_infos")).rows[0].n)

const setFilesConfig = (value: Record<string, unknown>) =>
  db.query(
    `INSERT INTO server_config (section, value, update_at) VALUES ('files', $1::jsonb, 1)
     ON CONFLICT (section) DO UPDATE SET value = server_config.value || EXCLUDED.value`,
    [JSON.stringify(value)]
  )

beforeAll(async () => {
  server = await startServer()
  db = await Fixtures.open(server.databaseUrl)
  alice = await newUser(server.url, "alice")
  bob = await newUser(server.url, "bob")
  outsider = await newUser(server.url, "out")
  teamId = (await alice.client.createTeam({ name: `files${Date.now()}`, display_name: "Files", type: "O" } as never)).id
  await alice.client.addToTeam(teamId, bob.user.id)
  channelId = (await alice.client.createChannel({ team_id: teamId, name: "uploads", display_name: "Uploads", type: "O" } as never)).id
  await alice.client.addToChannel(bob.user.id, channelId)
  privateId = (await alice.client.createChannel({ team_id: teamId, name: "private-uploads", display_name: "Private", type: "P" } as never)).id
})
afterAll(async () => {
  await db?.close()
  await server?.close()
})

describe("uploads through Client4", () => {
  it("uploads a PNG with its client id and makes width, height, thumbnail, preview and mini preview", async () => {
    const image = await png(400, 300)
    const response = await alice.client.uploadFile(form([
      ["channel_id", channelId],
      ["client_ids", "client-one"],
      ["files", blob(image, "image/png"), "red square.png"]
    ]))
    expectShape(response, Wire.FileUploadResponse, "upload")
    expect(response.client_ids).toEqual(["client-one"])
    expect(response.file_infos).toHaveLength(1)
    const info = response.file_infos[0]
    expect(info).toMatchObject({
      user_id: alice.user.id,
      channel_id: channelId,
      post_id: "",
      name: "red square.png",
      extension: "png",
      size: image.length,
      mime_type: "image/png",
      width: 400,
      height: 300,
      has_preview_image: true,
      delete_at: 0,
      archived: false
    })
    expect(info.id).toMatch(/^[a-z0-9]{26}$/)
    expect(typeof info.create_at).toBe("number")
    const mini = await sharp(Buffer.from(info.mini_preview!, "base64")).metadata()
    expect(mini).toMatchObject({ format: "jpeg", width: 16, height: 16 })

    const thumbnail = await raw(`/api/v4/files/${info.id}/thumbnail?1700000000`, tokenOf(alice))
    expect(thumbnail.status).toBe(200)
    expect(thumbnail.headers.get("content-type")).toBe("image/jpeg")
    const thumbMeta = await sharp(Buffer.from(await thumbnail.arrayBuffer())).metadata()
    // Wider than 6:5, so scaled to the box's height as Mattermost does.
    expect(thumbMeta).toMatchObject({ format: "jpeg", height: 100, width: 133 })

    const preview = await raw(`/api/v4/files/${info.id}/preview`, tokenOf(alice))
    expect(preview.headers.get("content-type")).toBe("image/jpeg")
    expect(await sharp(Buffer.from(await preview.arrayBuffer())).metadata()).toMatchObject({ format: "jpeg", width: 400, height: 300 })

    const original = await raw(`/api/v4/files/${info.id}`, tokenOf(bob))
    expect(original.status).toBe(200)
    expect(original.headers.get("content-type")).toBe("image/png")
    expect(original.headers.get("content-disposition")).toBe(`inline;filename="red%20square.png"; filename*=UTF-8''red%20square.png`)
    expect(Buffer.from(await original.arrayBuffer()).equals(image)).toBe(true)

    const download = await raw(`/api/v4/files/${info.id}?download=1`, tokenOf(bob))
    expect(download.headers.get("content-disposition")).toMatch(/^attachment;/)

    expect(await alice.client.getFileInfosForPost("x".repeat(26)).catch((e) => e.status_code)).toBe(404)
  })

  it("accepts the files before channel_id and client_ids after them, and several files at once", async () => {
    const image = await png(2500, 1000)
    const response = await alice.client.uploadFile(form([
      ["files", blob("plain words"), "notes.txt"],
      ["files", blob(image, "image/png"), "wide.png"],
      ["client_ids", "c1"],
      ["client_ids", "c2"],
      ["channel_id", channelId]
    ]))
    expect(response.client_ids).toEqual(["c1", "c2"])
    expect(response.file_infos.map((f) => f.name)).toEqual(["notes.txt", "wide.png"])
    expect(response.file_infos[0]).toMatchObject({ mime_type: "text/plain; charset=utf-8", width: 0, height: 0, has_preview_image: false })
    expect(response.file_infos[0]).not.toHaveProperty("mini_preview")
    const preview = await raw(`/api/v4/files/${response.file_infos[1].id}/preview`, tokenOf(alice))
    expect(await sharp(Buffer.from(await preview.arrayBuffer())).metadata()).toMatchObject({ width: 1920, height: 768 })
    const text = await raw(`/api/v4/files/${response.file_infos[0].id}`, tokenOf(alice))
    expect(text.headers.get("content-disposition")).toMatch(/^attachment;filename="notes.txt"/)
    expect(await text.text()).toBe("plain words")
    const noThumb = await raw(`/api/v4/files/${response.file_infos[0].id}/thumbnail`, tokenOf(alice))
    expect(noThumb.status).toBe(400)
    expect(await noThumb.json()).toMatchObject({ id: "api.file.get_file_thumbnail.no_thumbnail.app_error", status_code: 400 })
  })

  it("accepts the simple form: the raw body with channel_id and filename in the query", async () => {
    const response = await raw(`/api/v4/files?channel_id=${channelId}&filename=shared.bin&client_id=share-1`, tokenOf(alice), {
      method: "POST",
      body: new Uint8Array([1, 2, 3, 4, 5])
    })
    expect(response.status).toBe(201)
    expect(response.headers.get("content-type")).toBe("application/json")
    const body = await response.json()
    expect(body.client_ids).toEqual(["share-1"])
    expect(body.file_infos[0]).toMatchObject({ name: "shared.bin", size: 5, mime_type: "application/octet-stream", extension: "bin" })
    const info = await (await raw(`/api/v4/files/${body.file_infos[0].id}/info`, tokenOf(alice))).json()
    expect(info.id).toBe(body.file_infos[0].id)

    // Byte ranges, as video players ask for them.
    const ranged = (range: string) => raw(`/api/v4/files/${info.id}`, tokenOf(alice), { headers: { range } })
    const middle = await ranged("bytes=1-3")
    expect(middle.status).toBe(206)
    expect(middle.headers.get("content-range")).toBe("bytes 1-3/5")
    expect([...new Uint8Array(await middle.arrayBuffer())]).toEqual([2, 3, 4])
    const suffix = await ranged("bytes=-2")
    expect([...new Uint8Array(await suffix.arrayBuffer())]).toEqual([4, 5])
    expect((await ranged("bytes=9-")).status).toBe(416)
    const whole = await ranged("items=0-1")
    expect(whole.status).toBe(200)
    expect(whole.headers.get("accept-ranges")).toBe("bytes")
  })

  it("serves files to a cookie-authenticated GET (img tags), and refuses the outsider", async () => {
    const { file_infos } = await alice.client.uploadFile(form([["channel_id", channelId], ["files", blob(await png(50, 50), "image/png"), "c.png"]]))
    const viaCookie = await fetch(`${server.url}/api/v4/files/${file_infos[0].id}/thumbnail`, { headers: { cookie: `MMAUTHTOKEN=${tokenOf(bob)}` } })
    expect(viaCookie.status).toBe(200)
    expect(viaCookie.headers.get("content-type")).toBe("image/jpeg")
    for (const path of ["", "/thumbnail", "/preview", "/info"]) {
      const denied = await raw(`/api/v4/files/${file_infos[0].id}${path}`, tokenOf(outsider))
      expect(denied.status).toBe(403)
      expect(await denied.json()).toMatchObject({ id: "api.context.permissions.app_error", status_code: 403 })
      expect((await raw(`/api/v4/files/${file_infos[0].id}${path}`, undefined)).status).toBe(401)
    }
  })

  it("keeps private-channel files to its members and to the uploader", async () => {
    const { file_infos } = await alice.client.uploadFile(form([["channel_id", privateId], ["files", blob("secret"), "s.txt"]]))
    expect((await raw(`/api/v4/files/${file_infos[0].id}`, tokenOf(alice))).status).toBe(200)
    expect((await raw(`/api/v4/files/${file_infos[0].id}`, tokenOf(bob))).status).toBe(403)
  })
})

describe("authorization matrix", () => {
  it("answers each file and search route for a member, a team member outside a private channel, an outsider and nobody", async () => {
    const { file_infos } = await alice.client.uploadFile(form([["channel_id", channelId], ["files", blob(await png(40, 40), "image/png"), "m.png"]]))
    const postId = (await alice.client.createPost({ channel_id: channelId, message: "matrix", file_ids: [file_infos[0].id] } as never)).id
    const privateFile = (await alice.client.uploadFile(form([["channel_id", privateId], ["files", blob("p"), "p.txt"]]))).file_infos[0]
    const privatePost = (await alice.client.createPost({ channel_id: privateId, message: "private matrix", file_ids: [privateFile.id] } as never)).id
    const id = file_infos[0].id
    const search = JSON.stringify({ terms: "matrix" })
    const routes: Array<{ method: string; path: string; body?: string; member: number }> = [
      { method: "GET", path: `/api/v4/files/${id}`, member: 200 },
      { method: "GET", path: `/api/v4/files/${id}/thumbnail`, member: 200 },
      { method: "GET", path: `/api/v4/files/${id}/preview`, member: 200 },
      { method: "GET", path: `/api/v4/files/${id}/info`, member: 200 },
      { method: "GET", path: `/api/v4/posts/${postId}/files/info`, member: 200 },
      { method: "POST", path: `/api/v4/teams/${teamId}/posts/search`, body: search, member: 200 },
      { method: "POST", path: `/api/v4/teams/${teamId}/files/search`, body: search, member: 200 }
    ]
    const call = (token: string | undefined, route: { method: string; path: string; body?: string }) =>
      raw(route.path, token, { method: route.method, ...(route.body === undefined ? {} : { body: route.body }) })
    for (const route of routes) {
      expect((await call(tokenOf(bob), route)).status, `member ${route.path}`).toBe(route.member)
      const refused = await call(tokenOf(outsider), route)
      expect(refused.status, `outsider ${route.path}`).toBe(403)
      expect(await refused.json()).toMatchObject({ status_code: 403 })
      expect((await call(undefined, route)).status, `anonymous ${route.path}`).toBe(401)
    }
    for (const path of [`/api/v4/files/${privateFile.id}`, `/api/v4/files/${privateFile.id}/info`, `/api/v4/posts/${privatePost}/files/info`]) {
      expect((await raw(path, tokenOf(bob))).status, `non-member ${path}`).toBe(403)
    }
    const everywhere = await raw("/api/v4/posts/search", tokenOf(outsider), { method: "POST", body: search })
    expect((await everywhere.json()).order).toEqual([])
    const upload = await raw(`/api/v4/files?channel_id=${channelId}&filename=o.txt`, tokenOf(outsider), { method: "POST", body: "o" })
    expect(upload.status).toBe(403)
  })
})

describe("limits and refusals", () => {
  it("answers 413 for a file over MaxFileSize and keeps nothing, row or blob", async () => {
    await setFilesConfig({ max_file_size: 1000 })
    try {
      const [rowsBefore, blobsBefore] = [await fileRows(), storedBlobs()]
      const big = new Uint8Array(5000).fill(7)
      const multipart = alice.client.uploadFile(form([
        ["files", blob("small enough"), "ok.txt"],
        ["files", blob(big), "big.bin"],
        ["channel_id", channelId]
      ]))
      await expect(multipart).rejects.toMatchObject({ status_code: 413, server_error_id: "api.file.upload_file.too_large_detailed.app_error" })
      const simple = await raw(`/api/v4/files?channel_id=${channelId}&filename=big.bin`, tokenOf(alice), { method: "POST", body: big })
      expect(simple.status).toBe(413)
      expect(await simple.json()).toMatchObject({ id: "api.file.upload_file.too_large_detailed.app_error", status_code: 413 })
      expect(await fileRows()).toBe(rowsBefore)
      expect(storedBlobs()).toBe(blobsBefore)
      expect(readdirSync(join(server.config.dataDir, "files", ".partial"))).toEqual([])
    } finally {
      await setFilesConfig({ max_file_size: 100 * 1024 * 1024 })
    }
  })

  it("refuses uploads to channels the caller may not write, even when channel_id comes last, and keeps nothing", async () => {
    const [rowsBefore, blobsBefore] = [await fileRows(), storedBlobs()]
    await expect(outsider.client.uploadFile(form([["channel_id", channelId], ["files", blob("x"), "x.txt"]])))
      .rejects.toMatchObject({ status_code: 403 })
    await expect(bob.client.uploadFile(form([["files", blob("x"), "x.txt"], ["channel_id", privateId]])))
      .rejects.toMatchObject({ status_code: 403 })
    await expect(alice.client.uploadFile(form([["files", blob("x"), "x.txt"], ["channel_id", "q".repeat(26)]])))
      .rejects.toMatchObject({ status_code: 404 })
    expect(await fileRows()).toBe(rowsBefore)
    expect(storedBlobs()).toBe(blobsBefore)
  })

  it("answers bad input with 4xx and the error body", async () => {
    const cases: Array<[() => Promise<unknown>, number, string]> = [
      [() => alice.client.uploadFile(form([["files", blob("x"), "x.txt"]])), 400, "api.context.invalid_param.app_error"],
      [() => alice.client.uploadFile(form([["channel_id", "not-an-id"], ["files", blob("x"), "x.txt"]])), 400, "api.context.invalid_param.app_error"],
      [() => alice.client.uploadFile(form([["channel_id", channelId]])), 400, "api.file.upload_file.no_files.app_error"],
      [() => alice.client.uploadFile(form([["channel_id", channelId], ["client_ids", "a"], ["client_ids", "b"], ["files", blob("x"), "x.txt"]])), 400, "api.file.upload_file.incorrect_number_of_client_ids.app_error"],
      [() => alice.client.uploadFile(form([["channel_id", channelId], ["surprise", "1"], ["files", blob("x"), "x.txt"]])), 400, "api.context.invalid_param.app_error"],
      [() => alice.client.getFileInfosForPost("bad"), 400, "api.context.invalid_param.app_error"],
      [() => alice.client.getFilePublicLink("z".repeat(26)), 403, "api.file.get_public_link.disabled.app_error"]
    ]
    for (const [index, [call, status, id]] of cases.entries()) {
      await expect(call(), `case ${index}`).rejects.toMatchObject({ status_code: status, server_error_id: id })
    }
    const unknown = await raw(`/api/v4/files/${"z".repeat(26)}`, tokenOf(alice))
    expect(unknown.status).toBe(404)
    expect(await unknown.json()).toMatchObject({ id: "app.file_info.get.app_error" })
    const simpleWithoutName = await raw(`/api/v4/files?channel_id=${channelId}`, tokenOf(alice), { method: "POST", body: "abc" })
    expect(simpleWithoutName.status).toBe(400)
    const truncated = await raw("/api/v4/files", tokenOf(alice), {
      method: "POST",
      headers: { "content-type": "multipart/form-data; boundary=xyz" },
      body: "--xyz\r\nContent-Disposition: form-data; name=\"channel_id\"\r\n\r\n" + channelId + "\r\n--xyz\r\nContent-Disposition: form-data; name=\"files\"; filename=\"a.txt\"\r\n\r\nabc"
    })
    expect(truncated.status).toBe(400)
  })
})

describe("files of posts", () => {
  it("lists a post's files, hides them once the post is deleted, and hands out public links when enabled", async () => {
    const { file_infos } = await alice.client.uploadFile(form([
      ["channel_id", channelId],
      ["files", blob("first"), "1.txt"],
      ["files", blob("second"), "2.txt"]
    ]))
    const created = await alice.client.createPost({ channel_id: channelId, message: "with files", file_ids: file_infos.map((f) => f.id) } as never)
    const postId = created.id
    expect(created.metadata.files?.map((f) => f.id)).toEqual(file_infos.map((f) => f.id))
    const listed = await bob.client.getFileInfosForPost(postId)
    expect(listed.map((f) => f.name)).toEqual(["1.txt", "2.txt"])
    expect(listed.every((f) => f.post_id === postId)).toBe(true)
    await expect(outsider.client.getFileInfosForPost(postId)).rejects.toMatchObject({ status_code: 403 })

    await setFilesConfig({ enable_public_link: true })
    try {
      const { link } = expectShape(await bob.client.getFilePublicLink(file_infos[0].id), Wire.FilePublicLink, "public link")
      expect(link).toMatch(new RegExp(`/files/${file_infos[0].id}/public\\?h=[\\w-]+$`))
      const publicUrl = `${server.url}${new URL(link).pathname}${new URL(link).search}`
      const anonymous = await fetch(publicUrl)
      expect(anonymous.status).toBe(200)
      expect(await anonymous.text()).toBe("first")
      expect((await fetch(`${server.url}/files/${file_infos[0].id}/public?h=forged`)).status).toBe(400)
      await expect(outsider.client.getFilePublicLink(file_infos[0].id)).rejects.toMatchObject({ status_code: 403 })
    } finally {
      await setFilesConfig({ enable_public_link: false })
    }

    await alice.client.deletePost(postId)
    expect((await raw(`/api/v4/files/${file_infos[0].id}`, tokenOf(alice))).status).toBe(404)
    expect((await raw(`/api/v4/files/${file_infos[0].id}/info`, tokenOf(alice))).status).toBe(404)
    await expect(alice.client.getFileInfosForPost(postId)).rejects.toMatchObject({ status_code: 404 })
  })
})
