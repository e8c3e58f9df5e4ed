import { execFileSync } from "node:child_process"
import { generateKeyPairSync } from "node:crypto"
import { readFileSync } from "node:fs"
import * as http2 from "node:http2"
import type { AddressInfo } from "node:net"
import { join } from "node:path"
import { decodeProtectedHeader, jwtVerify } from "jose"
import { tempDir } from "../../support/Cleanup.ts"

/**
 * A loopback APNs: HTTP/2 over TLS with a self-signed certificate made by the openssl CLI for this run. It checks
 * what Apple checks: the ES256 provider JWT (signature with the team's key, kid, iss, age under an hour), the
 * topic and push-type pairing (VoIP on `<bundle>.voip`, alert and background on the bundle), the token's form.
 */
export interface ApnsRequest {
  readonly token: string
  readonly headers: Record<string, string>
  readonly payload: Record<string, unknown> & { readonly aps: Record<string, unknown> }
  readonly jwt: string
}

export type ApnsBehaviour =
  | { readonly kind: "unregistered" }
  | { readonly kind: "bad_device_token" }
  | { readonly kind: "status"; readonly status: number; readonly reason: string; readonly times: number }

export const makeTlsCertificate = () => {
  const dir = tempDir("fake-apns-")
  execFileSync("openssl", [
    "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
    "-keyout", join(dir, "key.pem"), "-out", join(dir, "cert.pem"), "-days", "1",
    "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost"
  ], { stdio: "ignore" })
  return { key: readFileSync(join(dir, "key.pem"), "utf8"), cert: readFileSync(join(dir, "cert.pem"), "utf8") }
}

export const startFakeApns = async (options: { readonly keyId?: string; readonly teamId?: string; readonly bundleId?: string } = {}) => {
  const keyId = options.keyId ?? "ABC123DEFG"
  const teamId = options.teamId ?? "TEAM123456"
  const bundleId = options.bundleId ?? "com.example.chat"
  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" })
  const tls = makeTlsCertificate()
  const requests: Array<ApnsRequest> = []
  const rejected: Array<{ readonly status: number; readonly reason: string }> = []
  const behaviours = new Map<string, ApnsBehaviour>()
  const jwtsSeen = new Set<string>()

  const server = http2.createSecureServer({ key: tls.key, cert: tls.cert })
  server.on("stream", (stream, headers) => {
    let text = ""
    stream.on("data", (c: Buffer) => (text += c.toString("utf8")))
    stream.on("end", async () => {
      const answer = (status: number, reason?: string) => {
        if (reason !== undefined) rejected.push({ status, reason })
        stream.respond({ ":status": status, "apns-id": "00000000-0000-0000-0000-000000000001", "content-type": "application/json" })
        stream.end(reason === undefined ? "" : JSON.stringify({ reason, ...(status === 410 ? { timestamp: Date.now() } : {}) }))
      }
      const path = String(headers[":path"] ?? "")
      const match = /^\/3\/device\/([0-9a-f]+)$/.exec(path)
      if (headers[":method"] !== "POST" || match === null) return answer(400, "BadDeviceToken")
      const jwt = String(headers.authorization ?? "").replace(/^bearer /, "")
      try {
        if (decodeProtectedHeader(jwt).kid !== keyId) return answer(403, "InvalidProviderToken")
        const { payload } = await jwtVerify(jwt, publicKey, { algorithms: ["ES256"], issuer: teamId })
        if (typeof payload.iat !== "number" || Date.now() / 1000 - payload.iat > 3600) return answer(403, "ExpiredProviderToken")
      } catch {
        return answer(403, "InvalidProviderToken")
      }
      const topic = String(headers["apns-topic"] ?? "")
      const pushType = String(headers["apns-push-type"] ?? "")
      if (topic === "") return answer(400, "MissingTopic")
      if (pushType === "voip" ? topic !== `${bundleId}.voip` : topic !== bundleId) return answer(400, "DeviceTokenNotForTopic")
      if (!["alert", "background", "voip"].includes(pushType)) return answer(400, "InvalidPushType")
      if (pushType === "background" && headers["apns-priority"] !== "5") return answer(400, "BadPriority")
      const token = match[1]
      const behaviour = behaviours.get(token)
      if (behaviour?.kind === "unregistered") return answer(410, "Unregistered")
      if (behaviour?.kind === "bad_device_token") return answer(400, "BadDeviceToken")
      if (behaviour?.kind === "status" && behaviour.times > 0) {
        behaviours.set(token, { ...behaviour, times: behaviour.times - 1 })
        return answer(behaviour.status, behaviour.reason)
      }
      jwtsSeen.add(jwt)
      const flat: Record<string, string> = {}
      for (const [k, v] of Object.entries(headers)) if (!k.startsWith(":")) flat[k] = String(v)
      requests.push({ token, headers: flat, payload: JSON.parse(text), jwt })
      answer(200)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`

  return {
    url,
    ca: tls.cert,
    keyId,
    teamId,
    bundleId,
    privateKeyPem: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
    requests,
    rejected,
    /** Distinct provider JWTs accepted so far. */
    jwtsSeen,
    behave: (token: string, behaviour: ApnsBehaviour | undefined) => {
      if (behaviour === undefined) behaviours.delete(token)
      else behaviours.set(token, behaviour)
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve()))
  }
}

export type FakeApns = Awaited<ReturnType<typeof startFakeApns>>
