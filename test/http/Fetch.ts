/** Raw HTTP for the edge tests that need to see headers and cookies exactly as a client receives them. */
export interface RawResponse {
  readonly status: number
  readonly headers: Headers
  readonly text: string
  readonly body: any
}

export const send = async (url: string, init: RequestInit & { readonly json?: unknown } = {}): Promise<RawResponse> => {
  const { json, ...rest } = init
  const headers = new Headers(rest.headers)
  if (json !== undefined && !headers.has("content-type")) headers.set("content-type", "application/json")
  const response = await fetch(url, { ...rest, headers, body: json !== undefined ? JSON.stringify(json) : rest.body })
  const text = await response.text()
  let body: unknown = undefined
  try {
    body = text === "" ? undefined : JSON.parse(text)
  } catch {
    body = undefined
  }
  return { status: response.status, headers: response.headers, text, body }
}

/** The cookies of Set-Cookie headers by name, each with its attributes. */
export const setCookies = (headers: Headers) =>
  new Map(headers.getSetCookie().map((line) => {
    const [pair, ...attributes] = line.split(";").map((s) => s.trim())
    const eq = pair.indexOf("=")
    return [pair.slice(0, eq), { value: pair.slice(eq + 1), attributes: attributes.map((a) => a.toLowerCase()) }] as const
  }))

/** The Mattermost error body's exact keys. */
export const MATTERMOST_ERROR_KEYS = ["detailed_error", "id", "message", "request_id", "status_code"]
