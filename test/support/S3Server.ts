import { Option, Redacted } from "effect"
import S3rver from "s3rver"
import type { S3Settings } from "../../layers/FileStoreS3.ts"
import { atFileEnd, tempDir } from "./Cleanup.ts"

/**
 * A loopback S3-compatible server (s3rver, objects under a temporary directory) for the S3 FileStore, closed when
 * the test file ends. Returns the settings a node would take from SERVICE_FILES_S3_*, and those variables.
 */
export const startS3 = async (bucket = "service-files") => {
  const server = new S3rver({ address: "127.0.0.1", port: 0, silent: true, directory: tempDir("s3rver-"), configureBuckets: [{ name: bucket }] })
  const { port } = await server.run() as { port: number }
  atFileEnd(`close s3rver on ${port}`, () => server.close())
  const endpoint = `http://127.0.0.1:${port}`
  const settings: S3Settings = {
    endpoint: Option.some(endpoint),
    region: "us-east-1",
    bucket,
    // s3rver's fixed development credentials.
    accessKeyId: Option.some(Redacted.make("S3RVER")),
    secretAccessKey: Option.some(Redacted.make("S3RVER")),
    forcePathStyle: true
  }
  const env = {
    SERVICE_FILES_S3_ENDPOINT: endpoint,
    SERVICE_FILES_S3_REGION: "us-east-1",
    SERVICE_FILES_S3_BUCKET: bucket,
    SERVICE_FILES_S3_ACCESS_KEY_ID: "S3RVER",
    SERVICE_FILES_S3_SECRET_ACCESS_KEY: "S3RVER",
    SERVICE_FILES_S3_FORCE_PATH_STYLE: "true"
  }
  return { settings, env, endpoint }
}
