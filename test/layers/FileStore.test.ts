import { Chunk, Effect, Either, type Layer, Stream } from "effect"
import { readdirSync, existsSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { tempDir } from "../support/Cleanup.ts"
import { FileStore, type FileStoreService, layerLocal, layerMemory, validateKey } from "../../layers/FileStore.ts"
import * as FileStoreS3 from "../../layers/FileStoreS3.ts"
import { startS3 } from "../support/S3Server.ts"

const bytes = (s: string) => new TextEncoder().encode(s)
const text = (b: Uint8Array) => new TextDecoder().decode(b)

const run = <A, E>(store: Layer.Layer<FileStore, unknown>, f: (s: FileStoreService) => Effect.Effect<A, E>) =>
  Effect.runPromise(Effect.flatMap(FileStore, f).pipe(Effect.provide(store)))

// The S3 store runs against a loopback S3-compatible server (s3rver).
const s3 = await startS3()

const implementations = () => {
  const root = tempDir("filestore-")
  return [
    { name: "local disk", layer: layerLocal(root), root },
    { name: "memory", layer: layerMemory, root: undefined },
    { name: "S3", layer: FileStoreS3.layer(s3.settings), root: undefined }
  ] as const
}

describe.each(implementations())("FileStore ($name)", ({ layer, root }) => {
  it("puts bytes and streams, then gets, sizes, streams and deletes them", async () => {
    await run(layer, (store) =>
      Effect.gen(function*() {
        expect(yield* store.put("a/b/one.txt", bytes("hello"))).toBe(5)
        expect(yield* store.put("a/b/two.txt", Stream.make(bytes("ab"), bytes("cde")))).toBe(5)
        expect(text(yield* store.get("a/b/one.txt"))).toBe("hello")
        expect(yield* store.size("a/b/two.txt")).toBe(5)
        expect(yield* store.exists("a/b/two.txt")).toBe(true)
        const streamed = yield* Stream.runCollect(store.stream("a/b/two.txt"))
        expect(text(Buffer.concat(Chunk.toArray(streamed)))).toBe("abcde")
        const ranged = yield* Stream.runCollect(store.stream("a/b/two.txt", { start: 1, end: 3 }))
        expect(text(Buffer.concat(Chunk.toArray(ranged)))).toBe("bcd")
        yield* store.delete("a/b/two.txt")
        yield* store.delete("a/b/two.txt")
        expect(yield* store.exists("a/b/two.txt")).toBe(false)
        const missing = yield* Effect.either(store.get("a/b/two.txt"))
        expect(Either.isLeft(missing) && missing.left._tag).toBe("FileNotFound")
        const missingStream = yield* Effect.either(Stream.runCollect(store.stream("nothing/here")))
        expect(Either.isLeft(missingStream) && missingStream.left._tag).toBe("FileNotFound")
      }))
  })

  it("leaves nothing behind when the content stream fails part-way", async () => {
    const failing = Stream.make(bytes("partial")).pipe(Stream.concat(Stream.fail("cut" as const)))
    const result = await run(layer, (store) =>
      Effect.gen(function*() {
        const outcome = yield* Effect.either(store.put("cut/file", failing))
        return { outcome, exists: yield* store.exists("cut/file") }
      }))
    expect(Either.isLeft(result.outcome) && result.outcome.left).toBe("cut")
    expect(result.exists).toBe(false)
    if (root !== undefined) {
      expect(readdirSync(join(root, ".partial"))).toEqual([])
    }
  })

  it("rejects keys that could leave the store", async () => {
    for (const key of ["../escape", "a/../../escape", "/etc/passwd", "a//b", "./a", "a\\b", "", "a/\0"]) {
      const result = await run(layer, (store) => Effect.either(store.put(key, bytes("x"))))
      expect(Either.isLeft(result) && result.left).toMatchObject({ _tag: "InvalidKey" })
    }
    if (root !== undefined) expect(existsSync(join(root, "..", "escape"))).toBe(false)
  })
})

describe("FileStore (S3) beyond the contract", () => {
  it("streams a multipart upload larger than one part and reads ranges of it", async () => {
    const part = new Uint8Array(3 * 1024 * 1024).fill(7)
    const content = Stream.make(part, part, part.subarray(0, 1000))
    const result = await run(FileStoreS3.layer(s3.settings), (store) =>
      Effect.gen(function*() {
        const written = yield* store.put("big/file", content)
        const range = Buffer.concat(Chunk.toArray(yield* Stream.runCollect(store.stream("big/file", { start: 6 * 1024 * 1024 - 2, end: 6 * 1024 * 1024 + 1 }))))
        return { written, size: yield* store.size("big/file"), range: [...range] }
      }))
    expect(result.written).toBe(6 * 1024 * 1024 + 1000)
    expect(result.size).toBe(6 * 1024 * 1024 + 1000)
    expect(result.range).toEqual([7, 7, 7, 7])
  })

  it("checkBucket succeeds for the bucket and fails for a missing one", async () => {
    await expect(Effect.runPromise(FileStoreS3.checkBucket(s3.settings))).resolves.toBeUndefined()
    await expect(Effect.runPromise(FileStoreS3.checkBucket({ ...s3.settings, bucket: "no-such-bucket" }))).rejects.toThrow(/check bucket/)
  })
})

describe("validateKey", () => {
  it("accepts ordinary relative keys", async () => {
    await expect(Effect.runPromise(validateKey("uploads/20250101/u/f/original"))).resolves.toBe("uploads/20250101/u/f/original")
  })
})
