import { createHash } from "node:crypto"
import packageJson from "../../package.json" with { type: "json" }

/** The Mattermost server version we report everywhere: config/client, X-Version-Id and the WebSocket hello. */
export const MATTERMOST_VERSION = "10.11.0"
export const BUILD_NUMBER = "1"

/** This service's own version, from package.json, reported by /api/v1/health/live. */
export const SERVICE_VERSION: string = packageJson.version

/**
 * When this build was made, in the form Mattermost's builds report it (`date -u`: "Fri Nov 27 10:41:59 UTC 2026", the day padded with a space), for
 * client config's BuildDate (the About dialog). `npm run build` defines it; run from source under tsx, the source is
 * compiled as the process starts, so that moment is the build's.
 */
declare const __SERVICE_BUILD_DATE__: string | undefined

const DAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
const two = (n: number) => String(n).padStart(2, "0")

export const formatBuildDate = (at: Date) =>
  `${DAYS[at.getUTCDay()]} ${MONTHS[at.getUTCMonth()]} ${String(at.getUTCDate()).padStart(2, " ")} ${two(at.getUTCHours())}:${two(at.getUTCMinutes())}:${two(at.getUTCSeconds())} UTC ${at.getUTCFullYear()}`

export const BUILD_DATE: string = typeof __SERVICE_BUILD_DATE__ === "string"
  ? __SERVICE_BUILD_DATE__
  : formatBuildDate(new Date(Math.floor(performance.timeOrigin)))

export const BUILD_HASH = createHash("sha256").update(`${SERVICE_VERSION}/${MATTERMOST_VERSION}`).digest("hex").slice(0, 40)

/** `<version>.<build>.<client config hash>.<licensed>`, read by clients from responses without Cache-Control. */
export const versionIdHeader = (configHash: string = BUILD_HASH.slice(0, 32)) =>
  `${MATTERMOST_VERSION}.${BUILD_NUMBER}.${configHash}.false`
