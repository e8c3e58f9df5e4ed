/**
 * Requests Client4 has no method for (or whose raw response a test must see), sent the way Client4 sends them:
 * the session token as a Bearer header.
 */
export const raw = async (url: string, path: string, init: { method?: string; token?: string; body?: unknown; headers?: Record<string, string> } = {}) => {
  const headers: Record<string, string> = { ...init.headers }
  if (init.token !== undefined) headers.authorization = `BEARER ${init.token}`
  let body: BodyInit | undefined
  if (init.body instanceof Uint8Array || init.body instanceof FormData || typeof init.body === "string") body = init.body as BodyInit
  else if (init.body !== undefined) {
    body = JSON.stringify(init.body)
    headers["content-type"] = "application/json"
  }
  const response = await fetch(`${url}${path}`, { method: init.method ?? "GET", headers, body })
  const type = response.headers.get("content-type") ?? ""
  const payload: unknown = type === "application/json" ? await response.json() : new Uint8Array(await response.arrayBuffer())
  return { status: response.status, headers: response.headers, type, body: payload as any }
}

/** The token a logged-in Client4 holds. */
export const tokenOf = (client: { getToken: () => string }) => client.getToken()
