import { DeleteObjectCommand, GetObjectCommand, HeadBucketCommand, HeadObjectCommand, S3Client } from "@aws-sdk/client-s3"
import { Upload } from "@aws-sdk/lib-storage"
import { Effect, Layer, Option, Redacted, Stream } from "effect"
import type { Readable } from "node:stream"
import { type Content, FileNotFound, FileStore, FileStoreError, type FileStoreService, validateKey } from "./FileStore.ts"

/**
 * FileStore on an S3-compatible object store (AWS S3, MinIO, Ceph, R2, …), shared by every node: the mapping that
 * layers/FileStore.ts describes. Uploads stream through lib-storage's Upload (one PutObject below 5 MiB, a multipart
 * upload above, aborted when the content stream fails, so a failed upload leaves nothing); downloads stream the
 * object's body, with a Range header for ranges.
 */
export interface S3Settings {
  /** Unset: AWS's own endpoint for the region. */
  readonly endpoint: Option.Option<string>
  readonly region: string
  readonly bucket: string
  /** Unset: the SDK's default credential chain (environment, instance profile, …). */
  readonly accessKeyId: Option.Option<Redacted.Redacted>
  readonly secretAccessKey: Option.Option<Redacted.Redacted>
  /** `bucket` in the path rather than the host name, as MinIO and most self-hosted stores want. */
  readonly forcePathStyle: boolean
}

export const makeClient = (s: S3Settings) =>
  new S3Client({
    region: s.region,
    forcePathStyle: s.forcePathStyle,
    ...(Option.isSome(s.endpoint) ? { endpoint: s.endpoint.value } : {}),
    ...(Option.isSome(s.accessKeyId) && Option.isSome(s.secretAccessKey)
      ? { credentials: { accessKeyId: Redacted.value(s.accessKeyId.value), secretAccessKey: Redacted.value(s.secretAccessKey.value) } }
      : {})
  })

const isMissing = (cause: unknown) => {
  const e = cause as { name?: string; $metadata?: { httpStatusCode?: number } } | undefined
  return e?.name === "NoSuchKey" || e?.name === "NotFound" || e?.$metadata?.httpStatusCode === 404
}

/** HeadBucket: whether the bucket answers with these settings (--check-config). */
export const checkBucket = (s: S3Settings) =>
  Effect.acquireUseRelease(
    Effect.sync(() => makeClient(s)),
    (client) =>
      Effect.tryPromise({
        try: () => client.send(new HeadBucketCommand({ Bucket: s.bucket }), { abortSignal: AbortSignal.timeout(10_000) }),
        catch: (cause) => new FileStoreError({ op: "check bucket", key: s.bucket, cause })
      }),
    (client) => Effect.sync(() => client.destroy())
  ).pipe(Effect.asVoid)

export const makeS3 = (s: S3Settings) =>
  Effect.gen(function*() {
    const client = yield* Effect.acquireRelease(Effect.sync(() => makeClient(s)), (c) => Effect.sync(() => c.destroy()))
    const Bucket = s.bucket
    const io = <A>(op: string, key: string, f: (signal: AbortSignal) => Promise<A>) =>
      Effect.tryPromise({
        try: f,
        catch: (cause) => isMissing(cause) ? new FileNotFound({ key }) : new FileStoreError({ op, key, cause })
      })
    const write = <A>(key: string, f: (signal: AbortSignal) => Promise<A>) =>
      Effect.tryPromise({ try: f, catch: (cause) => new FileStoreError({ op: "put", key, cause }) })
    const head = (key: string) =>
      Effect.flatMap(validateKey(key), () => io("head", key, (abortSignal) => client.send(new HeadObjectCommand({ Bucket, Key: key }), { abortSignal })))
    const body = (key: string, range?: { start: number; end: number }) =>
      Effect.flatMap(validateKey(key), () =>
        io("get", key, (abortSignal) =>
          client.send(new GetObjectCommand({ Bucket, Key: key, ...(range === undefined ? {} : { Range: `bytes=${range.start}-${range.end}` }) }), { abortSignal })))

    const service: FileStoreService = {
      put: <E>(key: string, content: Content<E>) =>
        Effect.gen(function*() {
          yield* validateKey(key)
          if (content instanceof Uint8Array) {
            yield* write(key, (abortSignal) => new Upload({ client, params: { Bucket, Key: key, Body: content }, abortController: abortFrom(abortSignal) }).done())
            return content.length
          }
          // The content stream's own failure is kept aside and returned as is; the upload sees only "aborted".
          let failure: Option.Option<E> = Option.none()
          let written = 0
          const counted = content.pipe(
            Stream.tap((chunk) => Effect.sync(() => (written += chunk.length))),
            Stream.tapError((e) => Effect.sync(() => (failure = Option.some(e))))
          )
          const readable = yield* Stream.toReadableStreamEffect(counted)
          const uploaded = yield* Effect.either(write(key, (abortSignal) =>
            new Upload({ client, params: { Bucket, Key: key, Body: readable }, abortController: abortFrom(abortSignal) }).done()))
          if (Option.isSome(failure)) return yield* Effect.fail(failure.value)
          if (uploaded._tag === "Left") return yield* Effect.fail(uploaded.left)
          return written
        }),
      get: (key) =>
        Effect.flatMap(body(key), (out) => io("get", key, () => out.Body!.transformToByteArray())),
      stream: (key, range) =>
        Stream.unwrapScoped(Effect.map(
          Effect.acquireRelease(body(key, range), (out) => Effect.sync(() => (out.Body as Readable | undefined)?.destroy?.())),
          (out) =>
            Stream.fromAsyncIterable(out.Body as AsyncIterable<Uint8Array>, (cause) => new FileStoreError({ op: "stream", key, cause })).pipe(
              Stream.map((b) => new Uint8Array(b.buffer, b.byteOffset, b.byteLength))
            )
        )),
      exists: (key) =>
        head(key).pipe(Effect.as(true), Effect.catchTag("FileNotFound", () => Effect.succeed(false))),
      delete: (key) =>
        Effect.flatMap(validateKey(key), () =>
          io("delete", key, (abortSignal) => client.send(new DeleteObjectCommand({ Bucket, Key: key }), { abortSignal })).pipe(
            Effect.catchTag("FileNotFound", () => Effect.void),
            Effect.asVoid
          )),
      size: (key) => Effect.map(head(key), (h) => h.ContentLength ?? 0)
    }
    return service
  })

/** lib-storage takes an AbortController; interruption of the Effect aborts the signal Effect.tryPromise hands out. */
const abortFrom = (signal: AbortSignal) => {
  const controller = new AbortController()
  signal.addEventListener("abort", () => controller.abort(), { once: true })
  return controller
}

export const layer = (s: S3Settings): Layer.Layer<FileStore> => Layer.scoped(FileStore, makeS3(s))
