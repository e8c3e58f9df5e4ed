import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { newUser } from "../support/Clients.ts"
import { tinyPdf } from "../support/Samples.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"

/**
 * The preview of a PDF (GET /api/v4/files/{id}/preview) is the document itself, inline and framable by the service's
 * own pages only, for the web client's PDF viewer; the file's own URL keeps Mattermost's headers (an attachment that no
 * page may frame), ?download=1 still downloads, byte ranges work, and other files without a preview image still get
 * Mattermost's 400. Only members of the channel may read it.
 */
let server: TestServer
type Member = Awaited<ReturnType<typeof newUser>>
let alice: Member
let outsider: Member
let channelId: string

const get = (path: string, token: string, headers: Record<string, string> = {}) =>
  fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${token}`, ...headers } })

const upload = async (name: string, bytes: Buffer, type: string) => {
  const form = new FormData()
  form.append("channel_id", channelId)
  form.append("files", new Blob([bytes as BlobPart], { type }), name)
  const { file_infos } = await alice.client.uploadFile(form)
  await alice.client.createPost({ channel_id: channelId, message: name, file_ids: [file_infos[0].id] } as never)
  return file_infos[0]
}

beforeAll(async () => {
  server = await startServer()
  alice = await newUser(server.url, "alice")
  outsider = await newUser(server.url, "out")
  const team = await alice.client.createTeam({ name: `pdf${Date.now()}`, display_name: "PDF", type: "O" } as never)
  channelId = (await alice.client.createChannel({ team_id: team.id, name: "docs", display_name: "Docs", type: "P" } as never)).id
})
afterAll(async () => {
  await server?.close()
})

describe("PDF previews", () => {
  it("serves a PDF's preview inline, framable by the site's own pages, in ranges", async () => {
    const pdf = tinyPdf("Quarterly report")
    const file = await upload("report.pdf", pdf, "application/pdf")
    expect(file.mime_type).toBe("application/pdf")
    expect(file.has_preview_image).toBe(false)

    const preview = await get(`/api/v4/files/${file.id}/preview`, alice.client.getToken())
    expect(preview.status).toBe(200)
    expect(preview.headers.get("content-type")).toBe("application/pdf")
    expect(preview.headers.get("content-disposition")).toBe(`inline;filename="report.pdf"; filename*=UTF-8''report.pdf`)
    expect(preview.headers.get("x-frame-options")).toBe("SAMEORIGIN")
    expect(preview.headers.get("content-security-policy")).toBe("frame-ancestors 'self'")
    expect(preview.headers.get("x-content-type-options")).toBe("nosniff")
    expect(Buffer.from(await preview.arrayBuffer()).equals(pdf)).toBe(true)

    const part = await get(`/api/v4/files/${file.id}/preview`, alice.client.getToken(), { range: "bytes=0-7" })
    expect(part.status).toBe(206)
    expect(part.headers.get("content-range")).toBe(`bytes 0-7/${pdf.length}`)
    expect(Buffer.from(await part.arrayBuffer()).toString("latin1")).toBe("%PDF-1.4")

    const download = await get(`/api/v4/files/${file.id}/preview?download=1`, alice.client.getToken())
    expect(download.headers.get("content-disposition")).toMatch(/^attachment;/)

    // The file itself is served as Mattermost serves it.
    const original = await get(`/api/v4/files/${file.id}`, alice.client.getToken())
    expect(original.headers.get("content-disposition")).toMatch(/^attachment;/)
    expect(original.headers.get("x-frame-options")).toBe("DENY")
  })

  it("keeps the 400 for other files without a preview image, and the outsider out", async () => {
    const text = await upload("notes.txt", Buffer.from("hello\n"), "text/plain")
    const response = await get(`/api/v4/files/${text.id}/preview`, alice.client.getToken())
    expect(response.status).toBe(400)
    expect((await response.json()).id).toBe("api.file.get_file_preview.no_preview.app_error")

    const pdf = await upload("secret.pdf", tinyPdf("Secret"), "application/pdf")
    const denied = await get(`/api/v4/files/${pdf.id}/preview`, outsider.client.getToken())
    expect([403, 404]).toContain(denied.status)
    expect(denied.headers.get("content-type")).toBe("application/json")
  })
})
