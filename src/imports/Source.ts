import { Data, Effect, Stream } from "effect"
import { createReadStream } from "node:fs"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import type { Readable } from "node:stream"
import { StringDecoder } from "node:string_decoder"
import yauzl from "yauzl"

/**
 * Where an import reads from: a `.jsonl` file (attachments, emoji images and profile images named relative to its
 * folder) or a `.zip` holding one JSONL file and its `data/` folder, as `mmctl export create` writes it. Everything is
 * streamed: lines a piece of the file at a time, zip entries through yauzl, which reads the central directory (names
 * and offsets only) and then inflates one entry at a time; no file is ever held whole in memory.
 */
export class SourceError extends Data.TaggedError("SourceError")<{ readonly message: string }> {}

export interface NumberedLine {
  readonly line: number
  readonly text: string
}

export interface Source {
  readonly kind: "jsonl" | "zip"
  /** The lines of the JSONL, numbered from 1, read anew on each run of the stream. */
  readonly lines: Stream.Stream<NumberedLine, SourceError>
  /** Whether a file the JSONL names (an attachment's or emoji's `path`) is there. */
  readonly has: (name: string) => Effect.Effect<boolean>
  /** The named file's bytes as a stream, and its size. */
  readonly open: (name: string) => Effect.Effect<{ readonly stream: Stream.Stream<Uint8Array, SourceError>; readonly size: number }, SourceError>
}

const fail = (message: string) => new SourceError({ message })

/** A line ends at \n, \r\n or a lone \r, as readline reads lines. */
const LINE_BREAK = /\r?\n|\r(?!\n)/

/**
 * The lines of a byte stream, as many at a time as each piece of the stream holds. Written here rather than read
 * through readline: readline's async iterator queues up to 1,024 lines ahead of its reader, so memory was bounded by
 * 1,024 lines (40 MB of 40 kB posts) rather than by one; and one stream element per line cost more than checking the
 * line (a 90,000-line file took 1.5 s to read line by line, 0.3 s a piece at a time). Each piece is taken only when
 * the one before has been used, so what is held is a piece, its lines and the line it ends inside.
 */
async function* linesOf(input: AsyncIterable<Buffer>): AsyncGenerator<Array<string>> {
  const decoder = new StringDecoder("utf8")
  let rest = ""
  for await (const piece of input) {
    const text = decoder.write(piece)
    // A line longer than a piece is gathered without splitting what was gathered again.
    if (!/[\r\n]/.test(text)) {
      rest += text
      continue
    }
    let joined = rest + text
    // A \r at the end may be the first half of a \r\n: it waits for the next piece.
    const heldCr = joined.endsWith("\r")
    if (heldCr) joined = joined.slice(0, -1)
    const lines = joined.split(LINE_BREAK)
    rest = lines.pop()! + (heldCr ? "\r" : "")
    if (lines.length > 0) yield lines
  }
  const last = (rest + decoder.end()).split(LINE_BREAK).filter((l, i, all) => i < all.length - 1 || l !== "")
  if (last.length > 0) yield last
}

const readLines = (open: () => Promise<Readable>): Stream.Stream<NumberedLine, SourceError> =>
  Stream.unwrapScoped(Effect.gen(function*() {
    const input = yield* Effect.acquireRelease(
      Effect.tryPromise({ try: open, catch: (e) => fail(`cannot read the JSONL: ${e instanceof Error ? e.message : String(e)}`) }),
      (s) => Effect.sync(() => s.destroy())
    )
    let numbered = 0
    return Stream.fromAsyncIterable(linesOf(input), (e) => fail(`reading the JSONL failed: ${e instanceof Error ? e.message : String(e)}`)).pipe(
      Stream.mapConcat((lines) => lines.map((text) => ({ line: ++numbered, text })))
    )
  }))

const toStream = (open: () => Promise<Readable>) =>
  Stream.unwrapScoped(Effect.map(
    Effect.acquireRelease(
      Effect.tryPromise({ try: open, catch: (e) => fail(e instanceof Error ? e.message : String(e)) }),
      (s) => Effect.sync(() => s.destroy())
    ),
    (readable) => Stream.fromAsyncIterable(readable as AsyncIterable<Uint8Array>, (e) => fail(e instanceof Error ? e.message : String(e)))
  ))

/** A name from the JSONL as a path inside `base`, or undefined when it would leave it (`..`, absolute paths). */
export const inside = (base: string, name: string): string | undefined => {
  const resolved = path.resolve(base, name)
  return resolved.startsWith(path.resolve(base) + path.sep) ? resolved : undefined
}

const jsonlSource = (file: string): Source => {
  const base = path.dirname(path.resolve(file))
  const stat = (name: string) => {
    const full = inside(base, name)
    return full === undefined
      ? Effect.succeed(undefined)
      : Effect.promise(() => fs.stat(full).then((s) => (s.isFile() ? { full, size: s.size } : undefined), () => undefined))
  }
  return {
    kind: "jsonl",
    lines: readLines(async () => createReadStream(file)),
    has: (name) => Effect.map(stat(name), (s) => s !== undefined),
    open: (name) =>
      Effect.flatMap(stat(name), (s) =>
        s === undefined
          ? Effect.fail(fail(`no file "${name}" beside the JSONL`))
          : Effect.succeed({ stream: toStream(async () => createReadStream(s.full)), size: s.size }))
  }
}

export const openZip = (file: string) =>
  new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.open(file, { lazyEntries: true, autoClose: false }, (e, zip) => (e ? reject(e) : resolve(zip))))

/** The central directory: each entry's name and offsets (no content). */
export const listEntries = (zip: yauzl.ZipFile) =>
  new Promise<Map<string, yauzl.Entry>>((resolve, reject) => {
    const entries = new Map<string, yauzl.Entry>()
    zip.on("entry", (entry: yauzl.Entry) => {
      if (!entry.fileName.endsWith("/")) entries.set(entry.fileName, entry)
      zip.readEntry()
    })
    zip.once("end", () => resolve(entries))
    zip.once("error", reject)
    zip.readEntry()
  })

export const entryStream = (zip: yauzl.ZipFile, entry: yauzl.Entry) =>
  new Promise<Readable>((resolve, reject) => zip.openReadStream(entry, (e, s) => (e ? reject(e) : resolve(s))))

const zipSource = (file: string) =>
  Effect.gen(function*() {
    const zip = yield* Effect.acquireRelease(
      Effect.tryPromise({ try: () => openZip(file), catch: (e) => fail(`not a readable zip: ${e instanceof Error ? e.message : String(e)}`) }),
      (z) => Effect.sync(() => z.close())
    )
    const entries = yield* Effect.tryPromise({ try: () => listEntries(zip), catch: (e) => fail(`not a readable zip: ${e instanceof Error ? e.message : String(e)}`) })
    const jsonl = [...entries.keys()].filter((n) => n.endsWith(".jsonl") && !n.includes("/")).sort()
    if (jsonl.length !== 1) {
      return yield* Effect.fail(fail(jsonl.length === 0 ? "the zip holds no .jsonl file at its top level" : `the zip holds several .jsonl files: ${jsonl.join(", ")}`))
    }
    const main = entries.get(jsonl[0])!
    // mmctl writes attachment paths as `data/...`; a path without that prefix is looked up under data/ as well.
    const find = (name: string) => entries.get(name) ?? entries.get(`data/${name}`)
    const source: Source = {
      kind: "zip",
      lines: readLines(() => entryStream(zip, main)),
      has: (name) => Effect.succeed(find(name) !== undefined),
      open: (name) => {
        const entry = find(name)
        return entry === undefined
          ? Effect.fail(fail(`no file "${name}" in the zip`))
          : Effect.succeed({ stream: toStream(() => entryStream(zip, entry)), size: entry.uncompressedSize })
      }
    }
    return source
  })

/** Opens the file for the length of the scope. */
export const open = (file: string) =>
  Effect.gen(function*() {
    const stat = yield* Effect.tryPromise({ try: () => fs.stat(file), catch: () => fail(`no file ${file}`) })
    if (!stat.isFile()) return yield* Effect.fail(fail(`${file} is not a file`))
    const handle = yield* Effect.promise(() => fs.open(file, "r"))
    const head = Buffer.alloc(4)
    yield* Effect.promise(() => handle.read(head, 0, 4, 0).finally(() => handle.close()))
    // A zip starts with PK\x03\x04 (or PK\x05\x06 when empty), whatever the file is called.
    return head[0] === 0x50 && head[1] === 0x4b ? yield* zipSource(file) : jsonlSource(file)
  })
