import { Effect } from "effect"
import { lookup as dnsLookup, type LookupAddress } from "node:dns"
import { request as httpRequest, type RequestOptions } from "node:http"
import { request as httpsRequest } from "node:https"
import { BlockList, isIP } from "node:net"

/**
 * GET /redirect_location: where a (shortened) link points, for the mobile app's link expansion. The server makes
 * the request, so it refuses loopback, private, link-local and other reserved addresses at connect time (after DNS,
 * so a name that resolves inward is refused too), as Mattermost does unless internal connections are allowed.
 */
const reserved = new BlockList()
for (const [net, prefix] of [
  ["0.0.0.0", 8], ["10.0.0.0", 8], ["100.64.0.0", 10], ["127.0.0.0", 8], ["169.254.0.0", 16], ["172.16.0.0", 12],
  ["192.0.0.0", 24], ["192.168.0.0", 16], ["198.18.0.0", 15], ["224.0.0.0", 4], ["240.0.0.0", 4]
] as const) reserved.addSubnet(net, prefix, "ipv4")
for (const [net, prefix] of [["::", 128], ["::1", 128], ["fc00::", 7], ["fe80::", 10], ["ff00::", 8]] as const) {
  reserved.addSubnet(net, prefix, "ipv6")
}

export const isReservedAddress = (address: string): boolean => {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)
  if (mapped) return isReservedAddress(mapped[1])
  const family = isIP(address)
  if (family === 0) return true
  return reserved.check(address, family === 4 ? "ipv4" : "ipv6")
}

const safeLookup: RequestOptions["lookup"] = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses: Array<LookupAddress>) => {
    if (error) return callback(error, "", 0)
    const allowed = addresses.filter((a) => !isReservedAddress(a.address))
    if (allowed.length === 0 || allowed.length !== addresses.length) {
      return callback(Object.assign(new Error(`refusing to connect to a reserved address for ${hostname}`), { code: "EREFUSED" }), "", 0)
    }
    if (options.all) return (callback as unknown as (e: null, a: Array<LookupAddress>) => void)(null, allowed)
    callback(null, allowed[0].address, allowed[0].family)
  })
}

/** The Location the URL redirects to (absolute), or "" when it does not redirect or cannot be reached. */
export const redirectLocation = (target: URL): Effect.Effect<string> =>
  Effect.async<string>((resume) => {
    if (isIP(target.hostname.replace(/^\[|\]$/g, "")) !== 0 && isReservedAddress(target.hostname.replace(/^\[|\]$/g, ""))) {
      resume(Effect.succeed(""))
      return
    }
    const send = target.protocol === "https:" ? httpsRequest : httpRequest
    const req = send(target, { method: "HEAD", lookup: safeLookup, timeout: 5000 }, (res) => {
      res.resume()
      const location = res.statusCode !== undefined && res.statusCode >= 300 && res.statusCode < 400 ? res.headers.location : undefined
      resume(Effect.succeed(location === undefined ? "" : new URL(location, target).toString()))
    })
    req.on("timeout", () => req.destroy(new Error("timeout")))
    req.on("error", () => resume(Effect.succeed("")))
    req.end()
    return Effect.sync(() => req.destroy())
  })
