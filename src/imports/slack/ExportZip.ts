import { Effect, Schema, Stream } from "effect"
import type { Readable } from "node:stream"
import { entryStream, listEntries, openZip, SourceError } from "../Source.ts"
import { describeParseError } from "../Validate.ts"

/**
 * A Slack export zip, read through yauzl: the central directory (names and offsets) once, then one JSON entry at a
 * time, inflated and parsed on its own. An entry is a day of one conversation or a list of users or channels, so the
 * memory an entry takes is bounded by MAX_ENTRY_BYTES, never by the size of the export. Every failure names the file
 * and the entry.
 */
export const MAX_ENTRY_BYTES = 256 * 1024 * 1024

export interface ExportZip {
  readonly names: ReadonlyArray<string>
  readonly has: (name: string) => boolean
  /** The entry decoded as JSON and then with `schema`; undefined when the zip holds no such entry. */
  readonly read: <A, I>(name: string, schema: Schema.Schema<A, I>) => Effect.Effect<A | undefined, SourceError>
  /** An entry's bytes as a stream (a shared file under __uploads/), inflated as it is read. */
  readonly open: (name: string) => Effect.Effect<{ readonly stream: Stream.Stream<Uint8Array, SourceError>; readonly size: number }, SourceError>
}

const message = (e: unknown) => (e instanceof Error ? e.message : String(e))

const collect = async (stream: Readable) => {
  const chunks: Array<Buffer> = []
  for await (const chunk of stream) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString("utf8")
}

/** Opens the export for the length of the scope. */
export const openExport = (file: string) =>
  Effect.gen(function*() {
    const fail = (text: string) => new SourceError({ message: `${file}: ${text}` })
    const zip = yield* Effect.acquireRelease(
      Effect.tryPromise({ try: () => openZip(file), catch: (e) => fail(`not a readable zip (${message(e)})`) }),
      (z) => Effect.sync(() => z.close())
    )
    const entries = yield* Effect.tryPromise({ try: () => listEntries(zip), catch: (e) => fail(`not a readable zip (${message(e)})`) })
    if (!entries.has("users.json")) return yield* Effect.fail(fail("no users.json at the top of the zip: not a Slack workspace export"))
    const read = <A, I>(name: string, schema: Schema.Schema<A, I>) =>
      Effect.gen(function*() {
        const entry = entries.get(name)
        if (entry === undefined) return undefined
        if (entry.uncompressedSize > MAX_ENTRY_BYTES) return yield* Effect.fail(fail(`entry ${name} is larger than ${MAX_ENTRY_BYTES} bytes`))
        const text = yield* Effect.tryPromise({
          try: () => entryStream(zip, entry).then(collect),
          catch: (e) => fail(`entry ${name} cannot be read (${message(e)})`)
        })
        let json: unknown
        try {
          json = JSON.parse(text)
        } catch (e) {
          return yield* Effect.fail(fail(`entry ${name} is not valid JSON (${message(e)})`))
        }
        return yield* Schema.decodeUnknown(schema)(json).pipe(Effect.mapError((e) => fail(`entry ${name}: ${describeParseError(e)}`)))
      })
    const open = (name: string) => {
      const entry = entries.get(name)
      if (entry === undefined) return Effect.fail(fail(`no entry ${name}`))
      const stream = Stream.unwrapScoped(Effect.map(
        Effect.acquireRelease(
          Effect.tryPromise({ try: () => entryStream(zip, entry), catch: (e) => fail(`entry ${name} cannot be read (${message(e)})`) }),
          (s) => Effect.sync(() => s.destroy())
        ),
        (readable) => Stream.fromAsyncIterable(readable as AsyncIterable<Uint8Array>, (e) => fail(`entry ${name} cannot be read (${message(e)})`))
      ))
      return Effect.succeed({ stream, size: entry.uncompressedSize })
    }
    return { names: [...entries.keys()], has: (name: string) => entries.has(name), read, open } satisfies ExportZip
  })
