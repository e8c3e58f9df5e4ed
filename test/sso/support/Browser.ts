/**
 * A browser for flow tests: fetch with manual redirects and a path-aware cookie jar (oidc-provider scopes its
 * interaction cookies to paths). Public origins can be mapped onto loopback ones, like a reverse proxy: the service
 * under test believes it lives at its SERVICE_SITE_URL.
 */
interface Cookie {
  readonly name: string
  readonly value: string
  readonly host: string
  readonly path: string
}

export class Browser {
  private cookies: Array<Cookie> = []

  constructor(private readonly origins: Record<string, string> = {}) {}

  private real(url: URL): URL {
    const mapped = this.origins[url.origin]
    return mapped === undefined ? url : new URL(`${mapped}${url.pathname}${url.search}`)
  }

  cookie(name: string): string | undefined {
    return this.cookies.find((c) => c.name === name)?.value
  }

  private store(url: URL, response: Response) {
    for (const header of response.headers.getSetCookie()) {
      const [pair, ...attributes] = header.split(";").map((s) => s.trim())
      const eq = pair.indexOf("=")
      const name = pair.slice(0, eq)
      const value = pair.slice(eq + 1)
      let path = "/"
      let expired = false
      for (const attribute of attributes) {
        const [key, val = ""] = attribute.split("=")
        if (key.toLowerCase() === "path") path = val
        if (key.toLowerCase() === "max-age" && Number(val) <= 0) expired = true
        if (key.toLowerCase() === "expires" && Date.parse(val) < Date.now()) expired = true
      }
      this.cookies = this.cookies.filter((c) => !(c.name === name && c.host === url.host && c.path === path))
      if (!expired) this.cookies.push({ name, value, host: url.host, path })
    }
  }

  async fetch(input: string | URL, init: RequestInit = {}): Promise<Response> {
    const url = new URL(input)
    const jar = this.cookies
      .filter((c) => c.host === url.host && (url.pathname === c.path || url.pathname.startsWith(c.path.endsWith("/") ? c.path : `${c.path}/`)))
      .map((c) => `${c.name}=${c.value}`)
      .join("; ")
    const headers = new Headers(init.headers)
    if (jar !== "") headers.set("cookie", jar)
    const response = await fetch(this.real(url), { ...init, headers, redirect: "manual" })
    this.store(url, response)
    return response
  }

  /** Follows redirects from `start` until `stop` accepts a location (not fetched) or a page answers without one. */
  async follow(start: string | URL, stop: (url: URL) => boolean, maxHops = 20): Promise<{ readonly url: URL; readonly response?: Response }> {
    let url = new URL(start)
    for (let hop = 0; hop < maxHops; hop++) {
      if (stop(url)) return { url }
      const response = await this.fetch(url)
      const location = response.headers.get("location")
      if (response.status < 300 || response.status >= 400 || location === null) return { url, response }
      await response.body?.cancel()
      url = new URL(location, url)
    }
    throw new Error(`too many redirects from ${String(start)}`)
  }
}
