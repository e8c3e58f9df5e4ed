import { generateKeyPairSync, type KeyObject } from "node:crypto"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { jwtVerify } from "jose"

/**
 * A loopback FCM HTTP v1 with its OAuth token endpoint: it verifies the service account's RS256 JWT grant, issues
 * access tokens, accepts only issued (or the configured static) tokens, and records every message. `behaviour`
 * scripts answers per device token.
 */
export interface FcmMessage {
  readonly projectId: string
  readonly authorization: string
  readonly message: {
    readonly token: string
    readonly data: Record<string, string>
    readonly notification?: { readonly title: string; readonly body: string }
    readonly android: { readonly priority: string; readonly ttl?: string; readonly notification?: Record<string, unknown> }
  }
}

export type FcmBehaviour =
  | { readonly kind: "unregistered" }
  | { readonly kind: "status"; readonly status: number; readonly retryAfter?: string; readonly times: number }
  | { readonly kind: "hang" }

const readBody = (req: IncomingMessage) =>
  new Promise<string>((resolve) => {
    let text = ""
    req.on("data", (c: Buffer) => (text += c.toString("utf8")))
    req.on("end", () => resolve(text))
  })

export const startFakeFcm = async (options: { readonly expiresIn?: number; readonly staticToken?: string } = {}) => {
  const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 })
  const messages: Array<FcmMessage & { readonly at: number }> = []
  const rejections: Array<{ readonly token: string; readonly status: number; readonly body: string; readonly at: number }> = []
  const grants: Array<{ iss: string; scope: string }> = []
  const issued = new Set<string>(options.staticToken !== undefined ? [options.staticToken] : [])
  const behaviours = new Map<string, FcmBehaviour>()
  const hanging: Array<ServerResponse> = []
  let expiresIn = options.expiresIn ?? 3599
  let tokenCounter = 0

  const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { "content-type": "application/json", ...headers })
    res.end(JSON.stringify(body))
  }

  const server = createServer(async (req, res) => {
    const body = await readBody(req)
    if (req.method === "POST" && req.url === "/token") {
      const params = new URLSearchParams(body)
      try {
        const { payload } = await jwtVerify(params.get("assertion") ?? "", publicKey as KeyObject, {
          algorithms: ["RS256"],
          audience: `${url}/token`
        })
        if (params.get("grant_type") !== "urn:ietf:params:oauth:grant-type:jwt-bearer") throw new Error("grant_type")
        grants.push({ iss: String(payload.iss), scope: String(payload.scope) })
        tokenCounter += 1
        const token = `ya29.fake-${tokenCounter}`
        issued.add(token)
        return json(res, 200, { access_token: token, expires_in: expiresIn, token_type: "Bearer" })
      } catch {
        return json(res, 400, { error: "invalid_grant" })
      }
    }
    const match = /^\/v1\/projects\/([^/]+)\/messages:send$/.exec(req.url ?? "")
    if (req.method !== "POST" || match === null) return json(res, 404, { error: { code: 404, status: "NOT_FOUND" } })
    const authorization = req.headers.authorization ?? ""
    if (!issued.has(authorization.replace(/^Bearer /, ""))) {
      return json(res, 401, { error: { code: 401, message: "Request had invalid authentication credentials.", status: "UNAUTHENTICATED" } })
    }
    const parsed = JSON.parse(body) as { message: FcmMessage["message"] }
    const behaviour = behaviours.get(parsed.message.token)
    if (behaviour?.kind === "hang") {
      hanging.push(res)
      return
    }
    if (!(behaviour?.kind === "status" && behaviour.times > 0)) {
      messages.push({ projectId: match[1], authorization, message: parsed.message, at: Date.now() })
    }
    if (behaviour?.kind === "unregistered") {
      return json(res, 404, {
        error: {
          code: 404,
          message: "Requested entity was not found.",
          status: "NOT_FOUND",
          details: [{ "@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError", errorCode: "UNREGISTERED" }]
        }
      })
    }
    if (behaviour?.kind === "status" && behaviour.times > 0) {
      behaviours.set(parsed.message.token, { ...behaviour, times: behaviour.times - 1 })
      rejections.push({ token: parsed.message.token, status: behaviour.status, body: parsed.message.notification?.body ?? "", at: Date.now() })
      return json(
        res,
        behaviour.status,
        { error: { code: behaviour.status, status: behaviour.status === 429 ? "RESOURCE_EXHAUSTED" : "UNAVAILABLE", details: [{ errorCode: behaviour.status === 429 ? "QUOTA_EXCEEDED" : "UNAVAILABLE" }] } },
        behaviour.retryAfter !== undefined ? { "retry-after": behaviour.retryAfter } : {}
      )
    }
    return json(res, 200, { name: `projects/${match[1]}/messages/${messages.length}` })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`

  return {
    url,
    messages,
    rejections,
    grants,
    serviceAccount: {
      type: "service_account",
      project_id: "fake-project",
      client_email: "push@fake-project.iam.gserviceaccount.com",
      private_key: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
      token_uri: `${url}/token`
    },
    setExpiresIn: (seconds: number) => {
      expiresIn = seconds
    },
    behave: (token: string, behaviour: FcmBehaviour | undefined) => {
      if (behaviour === undefined) behaviours.delete(token)
      else behaviours.set(token, behaviour)
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of hanging) res.destroy()
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}

export type FakeFcm = Awaited<ReturnType<typeof startFakeFcm>>
