import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client4, newUser } from "../support/Clients.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"
import { send, setCookies } from "./Fetch.ts"

let server: TestServer

beforeAll(async () => {
  server = await startServer()
})
afterAll(() => server?.close())

const v4 = (path: string, init?: Parameters<typeof send>[1]) => send(`${server.url}/api/v4${path}`, init)

/** Logs a fresh user in the way the web app does, returning the cookies it was given. */
const browserLogin = async () => {
  const { username, password, user } = await newUser(server.url, "browser")
  const response = await v4("/users/login", {
    method: "POST",
    headers: { "x-requested-with": "XMLHttpRequest" },
    json: { login_id: username, password }
  })
  expect(response.status).toBe(200)
  const cookies = setCookies(response.headers)
  const token = cookies.get("MMAUTHTOKEN")!.value
  const csrf = cookies.get("MMCSRF")!.value
  return { user, cookies, token, csrf, jar: `MMAUTHTOKEN=${token}; MMUSERID=${user.id}; MMCSRF=${csrf}` }
}

describe("login cookies", () => {
  it("sets MMAUTHTOKEN (HttpOnly), MMUSERID and MMCSRF for XMLHttpRequest logins", async () => {
    const { user, cookies, token } = await browserLogin()
    const auth = cookies.get("MMAUTHTOKEN")!
    expect(auth.attributes).toContain("httponly")
    expect(auth.attributes).toContain("path=/")
    expect(auth.attributes.some((a) => a.startsWith("max-age="))).toBe(true)
    expect(token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/)
    expect(cookies.get("MMUSERID")).toMatchObject({ value: user.id })
    expect(cookies.get("MMUSERID")!.attributes).not.toContain("httponly")
    expect(cookies.get("MMCSRF")!.value).toMatch(/^[a-z0-9]{26}$/)
    expect(cookies.get("MMCSRF")!.attributes).not.toContain("httponly")
  })

  it("sets no cookies for API clients, which read the Token header", async () => {
    const { username, password } = await newUser(server.url, "apiclient")
    const response = await v4("/users/login", { method: "POST", json: { login_id: username, password } })
    expect(response.status).toBe(200)
    expect(response.headers.getSetCookie()).toEqual([])
    expect(response.headers.get("token")).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/)
  })
})

describe("the CSRF rule for cookie-authenticated writes", () => {
  it("lets cookie reads through without a CSRF token", async () => {
    const { user, jar } = await browserLogin()
    const me = await v4("/users/me", { headers: { cookie: jar } })
    expect(me.status).toBe(200)
    expect(me.body.id).toBe(user.id)
  })

  it("refuses a cookie write with neither X-CSRF-Token nor X-Requested-With with 401, leaving the session alive", async () => {
    const { jar } = await browserLogin()
    const forged = await v4("/users/logout", { method: "POST", headers: { cookie: jar } })
    expect(forged.status).toBe(401)
    expect(forged.body).toMatchObject({ id: "api.context.session_expired.app_error", status_code: 401 })
    const wrong = await v4("/users/logout", { method: "POST", headers: { cookie: jar, "x-csrf-token": "not-the-token" } })
    expect(wrong.status).toBe(401)
    expect((await v4("/users/me", { headers: { cookie: jar } })).status).toBe(200)
  })

  it("accepts a cookie write carrying the session's X-CSRF-Token", async () => {
    const { jar, csrf } = await browserLogin()
    const logout = await v4("/users/logout", { method: "POST", headers: { cookie: jar, "x-csrf-token": csrf } })
    expect(logout.status).toBe(200)
    expect(logout.body).toEqual({ status: "OK" })
    const cleared = setCookies(logout.headers)
    expect(cleared.get("MMAUTHTOKEN")?.value).toBe("")
    expect((await v4("/users/me", { headers: { cookie: jar } })).status).toBe(401)
  })

  it("accepts X-Requested-With: XMLHttpRequest in place of the token, as Mattermost's default mode does", async () => {
    const { jar } = await browserLogin()
    const logout = await v4("/users/logout", { method: "POST", headers: { cookie: jar, "x-requested-with": "XMLHttpRequest" } })
    expect(logout.status).toBe(200)
    expect((await v4("/users/me", { headers: { cookie: jar } })).status).toBe(401)
  })

  it("does not apply to header-authenticated writes", async () => {
    const { token } = await browserLogin()
    const logout = await v4("/users/logout", { method: "POST", headers: { authorization: `Bearer ${token}` } })
    expect(logout.status).toBe(200)
    expect((await v4("/users/me", { headers: { authorization: `Bearer ${token}` } })).status).toBe(401)
  })
})

describe("token extraction", () => {
  it("accepts Bearer in any case and the Token scheme, and nothing else", async () => {
    const { client, user } = await newUser(server.url, "schemes")
    const token = client.getToken()
    for (const header of [`Bearer ${token}`, `bearer ${token}`, `BEARER ${token}`, `Token ${token}`, `token ${token}`]) {
      const me = await v4("/users/me", { headers: { authorization: header } })
      expect(me.status, header).toBe(200)
      expect(me.body.id).toBe(user.id)
    }
    for (const header of [`Basic ${token}`, token, "Bearer", `Bearer ${token}x`]) {
      expect((await v4("/users/me", { headers: { authorization: header } })).status, header).toBe(401)
    }
  })
})

describe("SERVICE_JWT_SECRET", () => {
  it("signs everybody out when it changes", async () => {
    const { client, user } = await newUser(server.url, "rotate")
    const token = client.getToken()
    const sameSecret = await startServer({ databaseUrl: server.databaseUrl })
    const rotated = await startServer({
      databaseUrl: server.databaseUrl,
      env: { SERVICE_JWT_SECRET: "Zr4Xp8Lm2Qw6Tn0Vb5Hk9Jd3Fs7Gc1Ye" }
    })
    try {
      expect((await client4(sameSecret.url, token).getMe()).id).toBe(user.id)
      await expect(client4(rotated.url, token).getMe()).rejects.toMatchObject({ status_code: 401 })
    } finally {
      await Promise.all([sameSecret.close(), rotated.close()])
    }
  })
})
