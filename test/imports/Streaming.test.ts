import { Effect, Stream } from "effect"
import { once } from "node:events"
import { createWriteStream } from "node:fs"
import * as path from "node:path"
import { Readable } from "node:stream"
import { setFlagsFromString } from "node:v8"
import { runInNewContext } from "node:vm"
import { describe, expect, it } from "vitest"
import yazl from "yazl"
import * as Source from "../../src/imports/Source.ts"
import { decodeLine } from "../../src/imports/Validate.ts"
import { tempDir } from "../support/Cleanup.ts"

/**
 * The import reads its file as a stream, a line at a time, from a .jsonl or from inside a zip: a file far larger than
 * what the process holds at any moment goes through with memory bounded by a line, not by the file.
 */
const LINES = 600
const MESSAGE = "x".repeat(40_000)

const line = (i: number) =>
  JSON.stringify({ type: "post", post: { team: "t", channel: "c", user: "u", message: `${i} ${MESSAGE}`, create_at: i } }) + "\n"

function* generated() {
  yield JSON.stringify({ type: "version", version: 1 }) + "\n"
  for (let i = 0; i < LINES; i++) yield line(i)
}

// A collection before each sample, so that what is measured is what the reader still holds, not garbage.
setFlagsFromString("--expose-gc")
const gc = runInNewContext("gc") as () => void

const memory = () => {
  gc()
  const m = process.memoryUsage()
  return m.heapUsed + m.arrayBuffers
}

/** Reads every line, decoding each as the import does; returns the count and the largest growth of memory seen. */
const readAll = (file: string) =>
  Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    const source = yield* Source.open(file)
    const base = memory()
    let peak = 0
    let count = 0
    yield* source.lines.pipe(Stream.runForEach((l) =>
      Effect.sync(() => {
        count += 1
        if (decodeLine(l.text)._tag === "Left") throw new Error(`line ${l.line} did not decode`)
        if (count % 100 === 0) peak = Math.max(peak, memory() - base)
      })))
    return { count, peak }
  })))

describe("streaming", { timeout: 60_000 }, () => {
  const size = Buffer.byteLength(line(0)) * LINES

  it("a large .jsonl is read line by line", async () => {
    const file = path.join(tempDir("stream-"), "big.jsonl")
    const out = createWriteStream(file)
    Readable.from(generated()).pipe(out)
    await once(out, "finish")
    const { count, peak } = await readAll(file)
    expect(count).toBe(LINES + 1)
    // ~24 MB went through; what the reader held at any time is a small share of it.
    expect(size).toBeGreaterThan(22_000_000)
    expect(peak).toBeLessThan(size / 10)
  })

  it("a large JSONL inside a zip is inflated as it is read", async () => {
    const file = path.join(tempDir("stream-"), "big.zip")
    const zip = new yazl.ZipFile()
    zip.addReadStream(Readable.from(generated()), "import.jsonl")
    zip.end()
    const out = createWriteStream(file)
    zip.outputStream.pipe(out)
    await once(out, "finish")
    const { count, peak } = await readAll(file)
    expect(count).toBe(LINES + 1)
    expect(peak).toBeLessThan(size / 10)
  })
})
