import { randomBytes } from "node:crypto"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"

/**
 * A GitHub (Enterprise layout: web at `/`, REST API at `/api/v3`) speaking GitHub's wire format for OAuth apps:
 * single-use 10-minute codes bound to client and redirect_uri, OAuth errors as HTTP 200 with an `error` field,
 * comma-separated granted scopes, `401 Bad credentials`, scope checks (`user:email` for /user/emails, `read:org` for
 * memberships), membership states `active`/`pending` and 404 for non-members.
 */
export interface GithubAccount {
  readonly id: number
  readonly login: string
  readonly name?: string | null
  readonly emails: ReadonlyArray<{ email: string; primary: boolean; verified: boolean }>
  readonly orgs?: Record<string, "active" | "pending">
  /** Keyed "org/team-slug". */
  readonly teams?: Record<string, "active" | "pending">
}

export interface FakeGithub {
  readonly webBaseUrl: string
  readonly apiBaseUrl: string
  readonly clientId: string
  readonly clientSecret: string
  readonly accounts: Map<string, GithubAccount>
  nextLogin: string
  denyNext: boolean
  down: boolean
  /** Requests to the token endpoint and the API (not the authorize page). */
  hits: number
  readonly close: () => Promise<void>
}

const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) =>
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", ...headers }).end(JSON.stringify(body))

const readBody = (req: IncomingMessage) =>
  new Promise<string>((resolve) => {
    let data = ""
    req.on("data", (chunk) => (data += chunk))
    req.on("end", () => resolve(data))
  })

export const startFakeGithub = async (options: { readonly callbackPrefix: string }): Promise<FakeGithub> => {
  const codes = new Map<string, { login: string; redirectUri: string; scopes: Array<string>; expires: number }>()
  const tokens = new Map<string, { login: string; scopes: Array<string> }>()
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const fake: FakeGithub = {
    webBaseUrl: base,
    apiBaseUrl: `${base}/api/v3`,
    clientId: "Iv1.fakegithubclient",
    clientSecret: "gh-client-secret-51c2e8b4",
    accounts: new Map(),
    nextLogin: "",
    denyNext: false,
    down: false,
    hits: 0,
    close: () => new Promise((resolve) => server.close(() => resolve()))
  }

  const authorize = (url: URL, res: ServerResponse) => {
    const redirectUri = url.searchParams.get("redirect_uri") ?? ""
    const state = url.searchParams.get("state") ?? ""
    if (url.searchParams.get("client_id") !== fake.clientId || !redirectUri.startsWith(options.callbackPrefix)) {
      return send(res, 400, { error: "redirect_uri_mismatch" })
    }
    const target = new URL(redirectUri)
    target.searchParams.set("state", state)
    if (fake.denyNext) {
      fake.denyNext = false
      target.searchParams.set("error", "access_denied")
      target.searchParams.set("error_description", "The user has denied your application access.")
    } else {
      const code = randomBytes(10).toString("hex")
      codes.set(code, {
        login: fake.nextLogin,
        redirectUri,
        scopes: (url.searchParams.get("scope") ?? "").split(/[ ,]+/).filter(Boolean),
        expires: Date.now() + 10 * 60_000
      })
      target.searchParams.set("code", code)
    }
    res.writeHead(302, { location: target.toString() }).end()
  }

  const token = async (req: IncomingMessage, res: ServerResponse) => {
    const form = new URLSearchParams(await readBody(req))
    const reply = (body: Record<string, string>) =>
      (req.headers["accept"] ?? "").includes("application/json")
        ? send(res, 200, body)
        : res.writeHead(200, { "content-type": "application/x-www-form-urlencoded" }).end(new URLSearchParams(body).toString())
    if (form.get("client_id") !== fake.clientId || form.get("client_secret") !== fake.clientSecret) {
      return reply({ error: "incorrect_client_credentials", error_description: "The client_id and/or client_secret passed are incorrect." })
    }
    const code = codes.get(form.get("code") ?? "")
    codes.delete(form.get("code") ?? "")
    if (code === undefined || code.expires < Date.now()) {
      return reply({ error: "bad_verification_code", error_description: "The code passed is incorrect or expired." })
    }
    if (form.get("redirect_uri") !== code.redirectUri) {
      return reply({ error: "redirect_uri_mismatch", error_description: "The redirect_uri MUST match the registered callback URL for this application." })
    }
    const accessToken = `gho_${randomBytes(16).toString("hex")}`
    tokens.set(accessToken, { login: code.login, scopes: code.scopes })
    return reply({ access_token: accessToken, scope: code.scopes.join(","), token_type: "bearer" })
  }

  const api = (req: IncomingMessage, res: ServerResponse, path: string) => {
    if (path === "/" || path === "") return send(res, 200, { current_user_url: `${fake.apiBaseUrl}/user` })
    const auth = /^(?:bearer|token) (\S+)$/i.exec(req.headers["authorization"] ?? "")
    const grant = auth ? tokens.get(auth[1]) : undefined
    const account = grant ? fake.accounts.get(grant.login) : undefined
    if (grant === undefined || account === undefined) return send(res, 401, { message: "Bad credentials" })
    const headers = { "x-oauth-scopes": grant.scopes.join(", ") }
    const has = (scope: string) => grant.scopes.includes(scope)
    if (path === "/user") return send(res, 200, { login: account.login, id: account.id, name: account.name ?? null, email: null }, headers)
    if (path === "/user/emails") {
      return has("user:email") ? send(res, 200, account.emails.map((e) => ({ ...e, visibility: null })), headers) : send(res, 404, { message: "Not Found" }, headers)
    }
    const org = /^\/user\/memberships\/orgs\/([^/]+)$/.exec(path)
    if (org) {
      if (!has("read:org")) return send(res, 403, { message: "You need at least read:org scope" }, headers)
      const state = account.orgs?.[decodeURIComponent(org[1])]
      return state ? send(res, 200, { state, role: "member", organization: { login: decodeURIComponent(org[1]) } }, headers) : send(res, 404, { message: "Not Found" }, headers)
    }
    const team = /^\/orgs\/([^/]+)\/teams\/([^/]+)\/memberships\/([^/]+)$/.exec(path)
    if (team) {
      if (!has("read:org")) return send(res, 403, { message: "You need at least read:org scope" }, headers)
      const member = fake.accounts.get(decodeURIComponent(team[3]))
      const state = member?.teams?.[`${decodeURIComponent(team[1])}/${decodeURIComponent(team[2])}`]
      return state ? send(res, 200, { state, role: "member" }, headers) : send(res, 404, { message: "Not Found" }, headers)
    }
    return send(res, 404, { message: "Not Found" })
  }

  server.on("request", (req, res) => {
    const url = new URL(req.url ?? "/", base)
    if (url.pathname === "/login/oauth/authorize" && req.method === "GET") return authorize(url, res)
    fake.hits += 1
    if (fake.down) return send(res, 503, { message: "Service Unavailable" })
    if (url.pathname === "/login/oauth/access_token" && req.method === "POST") return void token(req, res)
    if (url.pathname.startsWith("/api/v3")) return api(req, res, url.pathname.slice("/api/v3".length))
    return send(res, 404, { message: "Not Found" })
  })
  return fake
}
