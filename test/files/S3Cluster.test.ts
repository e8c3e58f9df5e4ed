import { existsSync } from "node:fs"
import { join } from "node:path"
import sharp from "sharp"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client4, newUser } from "../support/Clients.ts"
import { startS3 } from "../support/S3Server.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"

/**
 * Two nodes on one database, each with its own data directory, storing files in one S3-compatible bucket (a loopback
 * s3rver): what one node stores through Client4, the other serves, ranges and previews included.
 */
let s3: Awaited<ReturnType<typeof startS3>>
let nodeA: TestServer
let nodeB: TestServer

beforeAll(async () => {
  s3 = await startS3()
  nodeA = await startServer({ env: s3.env })
  nodeB = await startServer({ env: s3.env, databaseUrl: nodeA.databaseUrl })
})
afterAll(async () => {
  await nodeB?.close()
  await nodeA?.close()
})

const get = (node: TestServer, path: string, token: string, headers: Record<string, string> = {}) =>
  fetch(`${node.url}${path}`, { headers: { authorization: `Bearer ${token}`, ...headers } })

describe("files on S3-compatible storage across two nodes", () => {
  it("uploads through Client4 on one node and downloads, by range and as a thumbnail, on the other", async () => {
    const alice = await newUser(nodeA.url, "s3a")
    const team = await alice.client.createTeam({ name: `s3team${Date.now()}`, display_name: "S3", type: "O" } as never)
    const channel = await alice.client.createChannel({ team_id: team.id, name: "s3files", display_name: "S3 files", type: "O" } as never)
    const form = new FormData()
    form.append("channel_id", channel.id)
    form.append("files", new Blob(["hello from node A"], { type: "text/plain" }), "hello.txt")
    const image = await sharp({ create: { width: 300, height: 200, channels: 3, background: { r: 10, g: 120, b: 200 } } }).png().toBuffer()
    form.append("files", new Blob([image as BlobPart], { type: "image/png" }), "picture.png")
    const { file_infos } = await alice.client.uploadFile(form)
    expect(file_infos).toHaveLength(2)
    const [text, picture] = file_infos
    await alice.client.createPost({ channel_id: channel.id, message: "files", file_ids: file_infos.map((f) => f.id) } as never)
    // Nothing was written under either node's data directory.
    for (const node of [nodeA, nodeB]) expect(existsSync(join(node.config.dataDir, "files", "uploads"))).toBe(false)

    const onB = client4(nodeB.url)
    await onB.login(alice.username, alice.password)
    const token = onB.getToken()
    const whole = await get(nodeB, `/api/v4/files/${text.id}`, token)
    expect(whole.status).toBe(200)
    expect(await whole.text()).toBe("hello from node A")
    const ranged = await get(nodeB, `/api/v4/files/${text.id}`, token, { range: "bytes=6-9" })
    expect(ranged.status).toBe(206)
    expect(ranged.headers.get("content-range")).toBe("bytes 6-9/17")
    expect(await ranged.text()).toBe("from")
    const thumbnail = await get(nodeB, `/api/v4/files/${picture.id}/thumbnail`, token)
    expect(thumbnail.status).toBe(200)
    const meta = await sharp(Buffer.from(await thumbnail.arrayBuffer())).metadata()
    expect(meta.width).toBeGreaterThan(0)
    const original = Buffer.from(await (await get(nodeB, `/api/v4/files/${picture.id}`, token)).arrayBuffer())
    expect(original.equals(image)).toBe(true)
    const infos = await onB.getFileInfosForPost((await onB.getPosts(channel.id)).order[0])
    expect(infos.map((f) => f.name).sort()).toEqual(["hello.txt", "picture.png"])
  })
})
