import { exportJWK, generateKeyPair, importJWK, type JWK, decodeJwt, decodeProtectedHeader, SignJWT } from "jose"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { Provider } from "oidc-provider"

/**
 * A real OpenID provider (oidc-provider, OpenID-certified) on loopback, for the SSO flow tests: auth code + PKCE,
 * client_secret_basic, single-use codes, RS256 ID tokens from its own key. Sign-in is headless: the next account
 * (`nextAccount`) logs in and consents automatically, or the user "denies" (`denyNext`). `mutateIdToken` rewrites
 * the ID token the token endpoint returns (forged, expired and foreign-key tests); `down` makes every endpoint 503.
 */
export interface Account {
  readonly email?: string
  readonly email_verified?: unknown
  readonly name?: string
  readonly preferred_username?: string
  readonly groups?: ReadonlyArray<string>
  readonly hd?: string
}

export interface FakeOidc {
  readonly issuer: string
  readonly clientId: string
  readonly clientSecret: string
  readonly accounts: Map<string, Account>
  nextAccount: string
  denyNext: boolean
  down: boolean
  mutateIdToken: ((idToken: string, sign: (claims: Record<string, unknown>, key?: "own" | "foreign") => Promise<string>) => Promise<string>) | undefined
  readonly close: () => Promise<void>
}

export const startFakeOidc = async (options: { readonly redirectUris: ReadonlyArray<string> }): Promise<FakeOidc> => {
  const server: Server = createServer()
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const own = await generateKeyPair("RS256", { extractable: true })
  const foreign = await generateKeyPair("RS256", { extractable: true })
  const ownJwk: JWK = { ...(await exportJWK(own.privateKey)), kid: "op-key-1", alg: "RS256", use: "sig" }
  const clientId = "chat-service"
  const clientSecret = "op-client-secret-7d1f0a9c"
  const accounts = new Map<string, Account>()

  const provider = new Provider(issuer, {
    clients: [{
      client_id: clientId,
      client_secret: clientSecret,
      redirect_uris: [...options.redirectUris],
      grant_types: ["authorization_code"],
      response_types: ["code"],
      token_endpoint_auth_method: "client_secret_basic"
    }],
    jwks: { keys: [ownJwk] },
    cookies: { keys: ["test-cookie-secret-1"] },
    pkce: { required: () => true },
    claims: {
      openid: ["sub"],
      email: ["email", "email_verified", "hd"],
      profile: ["name", "preferred_username", "groups"]
    },
    conformIdTokenClaims: false,
    features: { devInteractions: { enabled: false } },
    ttl: { AccessToken: 600, AuthorizationCode: 60, IdToken: 600, Interaction: 600, Session: 600, Grant: 600 },
    findAccount: async (_ctx: unknown, sub: string) => {
      const account = accounts.get(sub)
      return account && { accountId: sub, claims: async () => ({ sub, ...account }) }
    }
  })
  // Quiet: expected errors (replayed codes, bad verifiers) would otherwise print.
  provider.on("server_error", () => {})

  const sign = async (claims: Record<string, unknown>, key: "own" | "foreign" = "own") =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: "RS256", kid: "op-key-1" })
      .sign(key === "own" ? await importJWK(ownJwk, "RS256") : foreign.privateKey)

  const fake: FakeOidc = {
    issuer,
    clientId,
    clientSecret,
    accounts,
    nextAccount: "",
    denyNext: false,
    down: false,
    mutateIdToken: undefined,
    close: () => new Promise((resolve) => server.close(() => resolve()))
  }

  provider.use(async (ctx, next) => {
    await next()
    if (ctx.path === "/token" && ctx.status === 200 && fake.mutateIdToken !== undefined && typeof ctx.body?.id_token === "string") {
      ctx.body = { ...ctx.body, id_token: await fake.mutateIdToken(ctx.body.id_token, sign) }
    }
  })

  const handle = provider.callback()
  server.on("request", async (req, res) => {
    if (fake.down) {
      res.writeHead(503, { "content-type": "text/plain" }).end("unavailable")
      return
    }
    if (!req.url?.startsWith("/interaction/")) return handle(req, res)
    try {
      const { prompt, params, session, grantId } = await provider.interactionDetails(req, res)
      if (fake.denyNext) {
        fake.denyNext = false
        return provider.interactionFinished(req, res, { error: "access_denied", error_description: "The user said no" }, { mergeWithLastSubmission: false })
      }
      if (prompt.name === "login") {
        return provider.interactionFinished(req, res, { login: { accountId: fake.nextAccount } }, { mergeWithLastSubmission: false })
      }
      const grant = grantId ? await provider.Grant.find(grantId) : new provider.Grant({ accountId: session.accountId, clientId: params.client_id })
      if (prompt.details.missingOIDCScope) grant.addOIDCScope(prompt.details.missingOIDCScope.join(" "))
      if (prompt.details.missingOIDCClaims) grant.addOIDCClaims(prompt.details.missingOIDCClaims)
      return provider.interactionFinished(req, res, { consent: { grantId: await grant.save() } }, { mergeWithLastSubmission: true })
    } catch (error) {
      res.writeHead(500).end(String(error))
    }
  })
  return fake
}

/** Claims of a compact JWT, for tests that rewrite ID tokens. */
export const jwtParts = (token: string) => ({ header: decodeProtectedHeader(token), claims: decodeJwt(token) as Record<string, unknown> })
