import { Effect, Stream } from "effect"
import { once } from "node:events"
import { createWriteStream, writeFileSync } from "node:fs"
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

  it("reads lines as readline does across the file's 64 KiB pieces: \\r\\n split between two, a character split between two, a lone \\r, an empty line, no final newline", async () => {
    // A file is read in pieces of 64 KiB: the first line's \r is the first piece's last byte and its \n the second's
    // first; the two bytes of "é" are the last of the second piece and the first of the third.
    const first = "x".repeat(65_535)
    const second = `${"y".repeat(131_071 - (first.length + 2))}éz`
    const text = `${first}\r\n${second}\rafter a lone CR\n\nlast, with no newline`
    expect(Buffer.from(text).subarray(65_535, 65_537).toString()).toBe("\r\n")
    expect(Buffer.from(text).subarray(131_071, 131_073).toString()).toBe("é")
    const file = path.join(tempDir("stream-"), "pieces.jsonl")
    writeFileSync(file, text)
    const lines = await Effect.runPromise(Effect.scoped(Effect.flatMap(Source.open(file), (source) => Stream.runCollect(source.lines))))
    expect([...lines]).toEqual([
      { line: 1, text: first },
      { line: 2, text: second },
      { line: 3, text: "after a lone CR" },
      { line: 4, text: "" },
      { line: 5, text: "last, with no newline" }
    ])
    // A final line break ends the last line without adding an empty one; a final \r is a line break too.
    for (const [ending, expected] of [["a\nb\n", ["a", "b"]], ["a\r\nb\r", ["a", "b"]], ["\n", [""]], ["", []]] as const) {
      writeFileSync(file, ending)
      const read = await Effect.runPromise(Effect.scoped(Effect.flatMap(Source.open(file), (source) => Stream.runCollect(source.lines))))
      expect([...read].map((l) => l.text), JSON.stringify(ending)).toEqual(expected)
    }
  })
})
