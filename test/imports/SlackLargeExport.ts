import { randomBytes } from "node:crypto"
import { once } from "node:events"
import { createWriteStream } from "node:fs"
import * as path from "node:path"
import { Readable } from "node:stream"
import yazl from "yazl"
import { tempDir } from "../support/Cleanup.ts"

/**
 * A large Slack export, generated while it is written: each day-file is produced by a generator only when yazl reads
 * it, so neither the messages nor the zip are ever whole in the test's memory. `channels` public channels share the
 * messages (every 10th a reply in the thread of the message before it, every 7th with a reaction, some markup and
 * Unicode), 20 messages a day; one DM between the first two people gets every 50th (written by those two). `upload` adds a shared file of
 * that many random (incompressible, stored) bytes under __uploads/, attached to the first message, so the zip is large
 * on disk and the file's bytes have to be streamed into the file store.
 */
export interface LargeExport {
  readonly messages: number
  readonly channels: number
  readonly people: number
  readonly upload?: number
}

const PER_DAY = 20
const START = 1_600_000_000
const T = (seconds: number, micros: number) => `${seconds}.${String(micros).padStart(6, "0")}`

export const expectedCounts = ({ messages, channels }: LargeExport) => {
  const dm = Math.floor((messages - 1) / 50) + 1
  return { dm, channel: messages - dm, perChannel: (c: number) => countFor(messages, channels, c) }
}

/** Message i goes to the DM when i % 50 === 0, else to channel (i % channels). */
const countFor = (messages: number, channels: number, c: number) => {
  let n = 0
  for (let i = 0; i < messages; i++) if (i % 50 !== 0 && i % channels === c) n++
  return n
}

const userId = (k: number) => `U${String(k).padStart(6, "0")}`

function* dayJson(indexes: ReadonlyArray<number>, people: number, upload: boolean, dm: boolean): Generator<string> {
  yield "["
  let previousRoot: string | undefined
  for (const [n, i] of indexes.entries()) {
    const ts = T(START + i * 3, i % 1_000_000)
    const reply = i % 10 === 9 && previousRoot !== undefined
    const message: Record<string, unknown> = {
      type: "message",
      user: userId(dm ? i % 2 : i % people),
      ts,
      text: `message ${i} for <@${userId((i + 1) % people)}> with *bold* and _italic_ &amp; café 日本語 🎉 ` + "lorem ipsum dolor sit amet ".repeat(4),
      ...(reply ? { thread_ts: previousRoot } : {}),
      ...(i % 7 === 0 ? { reactions: [{ name: "+1", users: [userId((i + 2) % people), userId((i + 3) % people)], count: 2 }] } : {}),
      ...(upload && i === 1 ? { files: [{ id: "FBIG", name: "recording.bin", url_private: "https://files.slack.com/x/recording.bin" }] } : {})
    }
    if (!reply) previousRoot = ts
    yield (n === 0 ? "" : ",") + JSON.stringify(message)
  }
  yield "]"
}

/**
 * A day-file made when yazl reads it, in one piece: a day is a few kilobytes, and each piece written to the deflate
 * stream costs a round trip to the thread pool (a piece per message made the 100,000-message zip take 13-22 s).
 */
const lazy = (make: () => Iterable<string>) => Readable.from((function*() {
  yield Buffer.from([...make()].join(""))
})())

function* randomChunks(size: number): Generator<Buffer> {
  for (let left = size; left > 0; left -= 1 << 20) yield randomBytes(Math.min(left, 1 << 20))
}

export const writeLargeSlackZip = async (spec: LargeExport) => {
  const file = path.join(tempDir("slack-large-"), "large-export.zip")
  const zip = new yazl.ZipFile()
  const users = Array.from({ length: spec.people }, (_, k) => ({
    id: userId(k), name: `person.${k}`, real_name: `Person ${k}`, profile: { email: `person${k}@example.com`, first_name: "Person", last_name: String(k) }
  }))
  zip.addBuffer(Buffer.from(JSON.stringify(users)), "users.json")
  const channels = Array.from({ length: spec.channels }, (_, c) => ({
    id: `C${String(c).padStart(6, "0")}`, name: `channel-${c}`, creator: userId(0), members: users.map((u) => u.id), topic: { value: `topic ${c}` }
  }))
  zip.addBuffer(Buffer.from(JSON.stringify(channels)), "channels.json")
  zip.addBuffer(Buffer.from(JSON.stringify([{ id: "D000001", members: [userId(0), userId(1)] }])), "dms.json")
  // Day files: the indexes of a conversation's messages, PER_DAY at a time, each day a file named by its date.
  const folders = [...channels.map((c, index) => ({ folder: c.name, has: (i: number) => i % 50 !== 0 && i % spec.channels === index })), { folder: "D000001", has: (i: number) => i % 50 === 0 }]
  for (const { folder, has } of folders) {
    let day: Array<number> = []
    let dayNumber = 0
    const flush = (indexes: ReadonlyArray<number>, d: number) => {
      const date = new Date(Date.UTC(2020, 0, 1) + d * 86_400_000).toISOString().slice(0, 10)
      zip.addReadStream(lazy(() => dayJson(indexes, spec.people, spec.upload !== undefined, folder === "D000001")), `${folder}/${date}.json`)
    }
    for (let i = 0; i < spec.messages; i++) {
      if (!has(i)) continue
      day.push(i)
      if (day.length === PER_DAY) {
        flush(day, dayNumber++)
        day = []
      }
    }
    if (day.length > 0) flush(day, dayNumber)
  }
  if (spec.upload !== undefined) {
    zip.addReadStream(Readable.from(randomChunks(spec.upload)), "__uploads/FBIG/recording.bin", { compress: false })
  }
  zip.end()
  const out = createWriteStream(file)
  zip.outputStream.pipe(out)
  await once(out, "finish")
  return file
}
