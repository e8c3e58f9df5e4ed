import { HttpServerRequest } from "@effect/platform"
import { Effect, Option } from "effect"
import { BlockList, isIP } from "node:net"
import { AppConfig } from "../Config.ts"

/**
 * The client's address. Forwarding headers (X-Forwarded-For, then X-Real-IP) are believed only when the direct peer
 * is a trusted proxy (SERVICE_TRUSTED_PROXIES, CIDRs or addresses); otherwise the socket's address is used, so a
 * client cannot dodge a rate limit by forging a header.
 */
export const makeTrustedProxies = (entries: ReadonlyArray<string>) => {
  const list = new BlockList()
  for (const entry of entries) {
    const [address, bits] = entry.split("/")
    const type = isIP(address) === 6 ? "ipv6" : "ipv4"
    if (isIP(address) === 0) continue
    if (bits === undefined) list.addAddress(address, type)
    else list.addSubnet(address, Number(bits), type)
  }
  return (address: string) => {
    const plain = normalize(address)
    const type = isIP(plain) === 6 ? "ipv6" : "ipv4"
    return isIP(plain) !== 0 && list.check(plain, type)
  }
}

/**
 * One spelling per address, so that a limit counts an address once however it is written: IPv4-mapped IPv6
 * ("::ffff:127.0.0.1", how Node reports IPv4 peers on a dual-stack socket, or "::ffff:7f00:1") becomes the IPv4
 * address; other IPv6 addresses take their canonical form (lowercase, zeros compressed: "0:0:0:0:0:0:0:1" is "::1").
 * The WHATWG URL parser does the canonicalisation. Loopback spellings ("::1", "127.0.0.2") are folded for counting
 * by limitKey, not here: trusted-proxy lists name them as written.
 */
export const normalize = (address: string) => {
  if (isIP(address) !== 6) return address
  let canonical: string
  try {
    canonical = new URL(`http://[${address}]/`).hostname.slice(1, -1)
  } catch {
    return address
  }
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(canonical)
  if (mapped === null) return canonical
  const high = parseInt(mapped[1], 16)
  const low = parseInt(mapped[2], 16)
  return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`
}

const loopback = (() => {
  const list = new BlockList()
  list.addSubnet("127.0.0.0", 8, "ipv4")
  list.addAddress("::1", "ipv6")
  return list
})()

/**
 * The /64 an IPv6 address belongs to, from its canonical form (normalize: lowercase hex pieces, the longest zero run
 * as "::", never a dotted IPv4 tail, since the WHATWG serializer writes none). Written here because Node parses
 * addresses (isIP, BlockList) but exposes no prefix of one, and expanding a canonical form is a few lines.
 */
const prefix64 = (canonical: string) => {
  const [head, tail] = canonical.split("::")
  const left = head === "" ? [] : head.split(":")
  const right = tail === undefined || tail === "" ? [] : tail.split(":")
  const pieces = tail === undefined ? left : [...left, ...Array(8 - left.length - right.length).fill("0"), ...right]
  return `${pieces.slice(0, 4).join(":")}::/64`
}

/**
 * The client a limit counts, from a normalised address:
 * - every loopback address (127.0.0.0/8 and ::1) is one machine, this one: a local peer could otherwise take a fresh
 *   budget from 127.0.0.2, 127.0.0.3... or by switching between "::1" and "127.0.0.1";
 * - an IPv6 address counts as its /64, the smallest block a network hands a subscriber (RFC 6177): a client owns the
 *   whole of it and could otherwise take a fresh budget from each of its 2^64 addresses.
 * Logs keep the address itself.
 */
export const limitKey = (address: string) => {
  const kind = isIP(address)
  if (kind === 0) return address
  if (loopback.check(address, kind === 6 ? "ipv6" : "ipv4")) return "loopback"
  return kind === 6 ? prefix64(address) : address
}

const trustedCache = new WeakMap<ReadonlyArray<string>, (address: string) => boolean>()

/** The trusted-proxy check of a configuration, built once per list. */
export const trustedProxiesOf = (entries: ReadonlyArray<string>) => {
  let isTrusted = trustedCache.get(entries)
  if (isTrusted === undefined) {
    isTrusted = makeTrustedProxies(entries)
    trustedCache.set(entries, isTrusted)
  }
  return isTrusted
}

/** The client's address from the peer's and, when the peer is a trusted proxy, the forwarding headers. */
export const clientAddress = (
  peerAddress: string,
  headers: Readonly<Record<string, string | ReadonlyArray<string> | undefined>>,
  isTrusted: (address: string) => boolean
) => {
  const peer = normalize(peerAddress)
  if (!isTrusted(peer)) return peer
  // Walk X-Forwarded-For from the right, skipping our own proxies: the first untrusted hop is the client.
  const forwarded = String(headers["x-forwarded-for"] ?? "").split(",").map((s) => normalize(s.trim())).filter((s) => isIP(s) !== 0)
  for (let i = forwarded.length - 1; i >= 0; i--) {
    if (!isTrusted(forwarded[i]) || i === 0) return forwarded[i]
  }
  const realIp = normalize(String(headers["x-real-ip"] ?? "").trim())
  return isIP(realIp) !== 0 ? realIp : peer
}

export const clientIp = Effect.gen(function*() {
  const request = yield* HttpServerRequest.HttpServerRequest
  const config = yield* AppConfig
  return clientAddress(Option.getOrElse(request.remoteAddress, () => "unknown"), request.headers, trustedProxiesOf(config.trustedProxies))
})
