import { Context, Data, Effect, Exit, Layer, Ref, Stream } from "effect"
import { randomBytes } from "node:crypto"
import { createReadStream } from "node:fs"
import * as fs from "node:fs/promises"
import * as path from "node:path"

/**
 * Blob storage for uploaded files, their thumbnails and previews, and custom emoji images. Keys are relative,
 * slash-separated paths (`uploads/20250101/<user>/<file>/original`); the store never sees a client-chosen path
 * segment it would interpret, and rejects `..`, `.`, empty segments, absolute keys, backslashes and NUL.
 *
 * Implementations: local disk under `<SERVICE_DATA_DIR>/files` (the default), memory (tests), and an S3-compatible
 * object store (layers/FileStoreS3.ts, when SERVICE_FILES_S3_BUCKET is set). The interface maps one to one onto S3:
 * - `put` → PutObject for bytes, or a multipart upload (CreateMultipartUpload / UploadPart per ≥5 MiB of the stream /
 *   CompleteMultipartUpload, AbortMultipartUpload when the stream fails) so that a failed upload leaves nothing;
 * - `get` / `stream` → GetObject (the body stream, with `Range: bytes=start-end` for a range; NoSuchKey → FileNotFound);
 * - `exists` / `size` → HeadObject (404 → false / FileNotFound; ContentLength);
 * - `delete` → DeleteObject (idempotent, as here).
 * Keys are already valid object keys; a bucket prefix would be prepended by that implementation.
 */
export class FileStoreError extends Data.TaggedError("FileStoreError")<{
  readonly op: string
  readonly key: string
  readonly cause: unknown
}> {
  override get message() {
    return `file store ${this.op} ${this.key} failed: ${this.cause instanceof Error ? this.cause.message : String(this.cause)}`
  }
}

export class FileNotFound extends Data.TaggedError("FileNotFound")<{ readonly key: string }> {}

export class InvalidKey extends Data.TaggedError("InvalidKey")<{ readonly key: string; readonly reason: string }> {}

export type Content<E = never> = Uint8Array | Stream.Stream<Uint8Array, E>

export interface ByteRange {
  readonly start: number
  /** Inclusive. */
  readonly end: number
}

export interface FileStoreService {
  /**
   * Stores the content under key, replacing what was there, and returns the number of bytes written. The write is
   * atomic: when a stream fails part-way (for instance because a size limit cut it) nothing is left under key, and the
   * stream's error is returned as is.
   */
  readonly put: <E = never>(key: string, content: Content<E>) => Effect.Effect<number, E | FileStoreError | InvalidKey>
  readonly get: (key: string) => Effect.Effect<Uint8Array, FileNotFound | FileStoreError | InvalidKey>
  /**
   * The content as a stream, for responses; fails with FileNotFound before the first chunk when absent. With a range,
   * only bytes start to end (inclusive, within the size) are read, for HTTP range requests.
   */
  readonly stream: (key: string, range?: ByteRange) => Stream.Stream<Uint8Array, FileNotFound | FileStoreError | InvalidKey>
  readonly exists: (key: string) => Effect.Effect<boolean, FileStoreError | InvalidKey>
  /** Removes the key; removing an absent key succeeds. */
  readonly delete: (key: string) => Effect.Effect<void, FileStoreError | InvalidKey>
  readonly size: (key: string) => Effect.Effect<number, FileNotFound | FileStoreError | InvalidKey>
}

export class FileStore extends Context.Tag("service/FileStore")<FileStore, FileStoreService>() {}

const MAX_KEY_LENGTH = 1024

/** Checks a key; every implementation calls this first, so a path can never leave the store's root. */
export const validateKey = (key: string): Effect.Effect<string, InvalidKey> => {
  const fail = (reason: string) => Effect.fail(new InvalidKey({ key, reason }))
  if (key.length === 0 || key.length > MAX_KEY_LENGTH) return fail("length must be 1 to 1024 characters")
  if (key.startsWith("/")) return fail("absolute keys are not allowed")
  if (key.includes("\\") || key.includes("\0")) return fail("backslashes and NUL are not allowed")
  for (const segment of key.split("/")) {
    if (segment === "" || segment === "." || segment === "..") return fail("empty, '.' and '..' segments are not allowed")
  }
  return Effect.succeed(key)
}

const toStream = <E>(content: Content<E>): Stream.Stream<Uint8Array, E> =>
  content instanceof Uint8Array ? Stream.succeed(content) : content

const isNotFound = (cause: unknown) => (cause as { code?: string } | undefined)?.code === "ENOENT"

/** Local disk: one file per key under root; writes go to root/.partial and are renamed into place. */
export const makeLocal = (root: string) =>
  Effect.gen(function*() {
    const base = path.resolve(root)
    const partial = path.join(base, ".partial")
    yield* Effect.tryPromise({
      try: () => fs.mkdir(partial, { recursive: true }),
      catch: (cause) => new FileStoreError({ op: "init", key: "", cause })
    })

    const resolve = (key: string) =>
      Effect.flatMap(validateKey(key), (valid) => {
        const full = path.resolve(base, valid)
        // validateKey already excludes traversal; this is the belt to its braces.
        return full.startsWith(base + path.sep) && !full.startsWith(partial + path.sep)
          ? Effect.succeed(full)
          : Effect.fail(new InvalidKey({ key, reason: "outside the store" }))
      })

    const io = <A>(op: string, key: string, f: () => Promise<A>) =>
      Effect.tryPromise({ try: f, catch: (cause) => new FileStoreError({ op, key, cause }) })

    const stat = (key: string) =>
      Effect.flatMap(resolve(key), (full) =>
        Effect.tryPromise({
          try: () => fs.stat(full),
          catch: (cause) => isNotFound(cause) ? new FileNotFound({ key }) : new FileStoreError({ op: "stat", key, cause })
        }))

    const service: FileStoreService = {
      put: <E>(key: string, content: Content<E>) =>
        Effect.gen(function*() {
          const full = yield* resolve(key)
          const temp = path.join(partial, randomBytes(12).toString("hex"))
          const write = Effect.acquireUseRelease(
            io("put", key, () => fs.open(temp, "wx")),
            (handle) =>
              Stream.runFoldEffect(toStream(content), 0, (written, chunk) =>
                Effect.as(io("put", key, () => handle.write(chunk)), written + chunk.length)),
            (handle) => Effect.promise(() => handle.close())
          )
          const place = io("put", key, async () => {
            await fs.mkdir(path.dirname(full), { recursive: true })
            await fs.rename(temp, full)
          })
          // Failed, cut or interrupted: the partial file goes; only a complete write is renamed into place.
          return yield* Effect.zipLeft(write, place).pipe(
            Effect.onExit((exit) => Exit.isSuccess(exit) ? Effect.void : Effect.promise(() => fs.rm(temp, { force: true })))
          )
        }),
      get: (key) =>
        Effect.flatMap(resolve(key), (full) =>
          Effect.tryPromise({
            try: () => fs.readFile(full),
            catch: (cause) => isNotFound(cause) ? new FileNotFound({ key }) : new FileStoreError({ op: "get", key, cause })
          }).pipe(Effect.map((buffer) => new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength)))),
      stream: (key, range) =>
        Stream.unwrap(
          Effect.map(Effect.zipRight(stat(key), resolve(key)), (full) =>
            Stream.fromAsyncIterable(
              createReadStream(full, range === undefined ? {} : { start: range.start, end: range.end }) as AsyncIterable<Buffer>,
              (cause) => new FileStoreError({ op: "stream", key, cause })
            ).pipe(Stream.map((b) => new Uint8Array(b.buffer, b.byteOffset, b.byteLength))))
        ),
      exists: (key) =>
        stat(key).pipe(
          Effect.as(true),
          Effect.catchTag("FileNotFound", () => Effect.succeed(false))
        ),
      delete: (key) => Effect.flatMap(resolve(key), (full) => io("delete", key, () => fs.rm(full, { force: true }))),
      size: (key) => Effect.map(stat(key), (s) => s.size)
    }
    return service
  })

/** In memory, for tests and single-process experiments. */
export const makeMemory = Effect.gen(function*() {
  const blobs = yield* Ref.make(new Map<string, Uint8Array>())
  const read = (key: string) =>
    Effect.flatMap(validateKey(key), () =>
      Effect.flatMap(Ref.get(blobs), (m) => {
        const blob = m.get(key)
        return blob === undefined ? Effect.fail(new FileNotFound({ key })) : Effect.succeed(blob)
      }))
  const service: FileStoreService = {
    put: <E>(key: string, content: Content<E>) =>
      Effect.gen(function*() {
        yield* validateKey(key)
        const chunks = yield* Stream.runCollect(toStream(content))
        const total = new Uint8Array(Array.from(chunks).reduce((n, c) => n + c.length, 0))
        let offset = 0
        for (const chunk of chunks) {
          total.set(chunk, offset)
          offset += chunk.length
        }
        yield* Ref.update(blobs, (m) => new Map(m).set(key, total))
        return total.length
      }),
    get: read,
    stream: (key, range) =>
      Stream.fromEffect(Effect.map(read(key), (blob) => range === undefined ? blob : blob.subarray(range.start, range.end + 1))),
    exists: (key) => Effect.flatMap(validateKey(key), () => Effect.map(Ref.get(blobs), (m) => m.has(key))),
    delete: (key) =>
      Effect.flatMap(validateKey(key), () =>
        Ref.update(blobs, (m) => {
          const next = new Map(m)
          next.delete(key)
          return next
        })),
    size: (key) => Effect.map(read(key), (b) => b.length)
  }
  return service
})

export const layerLocal = (root: string): Layer.Layer<FileStore, FileStoreError> => Layer.effect(FileStore, makeLocal(root))
export const layerMemory: Layer.Layer<FileStore> = Layer.effect(FileStore, makeMemory)

/** The default store of a node: `<dataDir>/files`. */
export const layer = (dataDir: string) => layerLocal(path.join(dataDir, "files"))
