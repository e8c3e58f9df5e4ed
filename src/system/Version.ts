import { createHash } from "node:crypto"
import packageJson from "../../package.json" with { type: "json" }

/** The Mattermost server version we report everywhere: config/client, X-Version-Id and the WebSocket hello. */
export const MATTERMOST_VERSION = "10.11.0"
export const BUILD_NUMBER = "1"

/** This service's own version, from package.json, reported by /api/v1/health/live. */
export const SERVICE_VERSION: string = packageJson.version

export const BUILD_HASH = createHash("sha256").update(`${SERVICE_VERSION}/${MATTERMOST_VERSION}`).digest("hex").slice(0, 40)

/** `<version>.<build>.<client config hash>.<licensed>`, read by clients from responses without Cache-Control. */
export const versionIdHeader = (configHash: string = BUILD_HASH.slice(0, 32)) =>
  `${MATTERMOST_VERSION}.${BUILD_NUMBER}.${configHash}.false`
