import { isIP } from "node:net"

/**
 * Which network addresses an outbound call made on a user's behalf may reach. A user who can configure a webhook or
 * a slash command URL could otherwise make the server probe its own network (databases, admin ports, the cloud
 * metadata service): loopback, private, link-local, CGNAT, multicast, unspecified and reserved ranges are refused,
 * for IPv4 and IPv6 alike, and an IPv6 address that embeds an IPv4 one (mapped, compatible, NAT64, 6to4) is judged
 * by the IPv4 address inside it. The operator's allow-list (hosts, addresses, CIDR ranges, like Mattermost's
 * AllowedUntrustedInternalConnections) reopens what it names.
 */

type Bytes = ReadonlyArray<number>

interface Range {
  readonly bytes: Bytes
  readonly bits: number
}

/** The 4 or 16 bytes of an address, or undefined when it is not one. */
export const addressBytes = (address: string): Bytes | undefined => {
  const plain = address.replace(/^\[|\]$/g, "").replace(/%.*$/, "")
  const version = isIP(plain)
  if (version === 4) return plain.split(".").map(Number)
  if (version !== 6) return undefined
  let text = plain
  let tail: Array<number> = []
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text)
  if (dotted !== null) {
    const v4 = dotted[1].split(".").map(Number)
    tail = v4
    text = text.slice(0, -dotted[1].length) + "0:0"
  }
  const [head, rest] = text.split("::") as [string, string | undefined]
  const groups = (s: string) => s === "" ? [] : s.split(":").map((g) => parseInt(g, 16))
  const front = groups(head)
  const back = rest === undefined ? [] : groups(rest)
  const words = [...front, ...Array(8 - front.length - back.length).fill(0), ...back]
  const bytes = words.flatMap((w) => [w >> 8, w & 0xff])
  if (tail.length === 4) bytes.splice(12, 4, ...tail)
  return bytes
}

const parseRange = (cidr: string): Range | undefined => {
  const [address, bitsText, extra] = cidr.split("/")
  if (extra !== undefined) return undefined
  const bytes = addressBytes(address)
  if (bytes === undefined) return undefined
  const max = bytes.length * 8
  if (bitsText === undefined) return { bytes, bits: max }
  if (!/^\d+$/.test(bitsText) || Number(bitsText) > max) return undefined
  return { bytes, bits: Number(bitsText) }
}

const inRange = (bytes: Bytes, range: Range): boolean => {
  if (bytes.length !== range.bytes.length) return false
  for (let bit = 0; bit < range.bits; bit += 8) {
    const width = Math.min(8, range.bits - bit)
    const mask = (0xff << (8 - width)) & 0xff
    const i = bit / 8
    if ((bytes[i] & mask) !== (range.bytes[i] & mask)) return false
  }
  return true
}

const ranges = (list: ReadonlyArray<string>) => list.map((r) => parseRange(r)!)

const blockedV4 = ranges([
  "0.0.0.0/8", // "this network", includes the unspecified address
  "10.0.0.0/8",
  "100.64.0.0/10", // carrier-grade NAT
  "127.0.0.0/8",
  "169.254.0.0/16", // link-local, includes the cloud metadata address 169.254.169.254
  "172.16.0.0/12",
  "192.0.0.0/24", // IETF protocol assignments
  "192.0.2.0/24",
  "192.88.99.0/24",
  "192.168.0.0/16",
  "198.18.0.0/15", // benchmarking
  "198.51.100.0/24",
  "203.0.113.0/24",
  "224.0.0.0/4", // multicast
  "240.0.0.0/4" // reserved, includes broadcast
])

const blockedV6 = ranges([
  "::/128", // unspecified
  "::1/128",
  "100::/64", // discard
  "2001:db8::/32", // documentation
  "fc00::/7", // unique local, includes AWS's metadata address fd00:ec2::254
  "fe80::/10", // link-local
  "fec0::/10", // deprecated site-local
  "ff00::/8" // multicast
])

/** IPv6 ranges that carry an IPv4 address, and where it sits. */
const embedding: ReadonlyArray<readonly [Range, number]> = [
  [parseRange("::ffff:0:0/96")!, 12], // IPv4-mapped
  [parseRange("::/96")!, 12], // IPv4-compatible (deprecated)
  [parseRange("64:ff9b::/96")!, 12], // NAT64
  [parseRange("64:ff9b:1::/48")!, 12], // local-use NAT64
  [parseRange("2002::/16")!, 2] // 6to4
]

/** The address as the network would treat it: an IPv4 address inside an IPv6 one becomes that IPv4 address. */
const effective = (bytes: Bytes): Bytes => {
  if (bytes.length === 4) return bytes
  // :: and ::1 sit inside ::/96 but are IPv6's own unspecified and loopback addresses.
  if (bytes.every((b, i) => i >= 15 || b === 0) && bytes[15] <= 1) return bytes
  for (const [range, at] of embedding) {
    if (inRange(bytes, range)) return bytes.slice(at, at + 4)
  }
  return bytes
}

export const isInternal = (address: string): boolean => {
  const bytes = addressBytes(address)
  if (bytes === undefined) return true
  const seen = effective(bytes)
  return (seen.length === 4 ? blockedV4 : blockedV6).some((r) => inRange(seen, r))
}

const hostnamePattern = /^(?=.{1,253}$)([a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9])?)(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9])?)*\.?$/i

/** Whether an allow-list entry is something the policy understands: a host name, an address or a CIDR range. */
export const isAllowEntry = (entry: string): boolean =>
  parseRange(entry) !== undefined || (!entry.includes("/") && hostnamePattern.test(entry))

const normalHost = (host: string) => host.toLowerCase().replace(/^\[|\]$/g, "").replace(/\.$/, "")

export interface AddressPolicy {
  /** Whether a host name is allowed as such, whatever it resolves to. */
  readonly hostAllowed: (host: string) => boolean
  /** Whether a resolved (or literal) address may be connected to. */
  readonly addressAllowed: (address: string) => boolean
}

export const makePolicy = (allowList: ReadonlyArray<string>): AddressPolicy => {
  const hosts = new Set<string>()
  const allowed: Array<Range> = []
  for (const entry of allowList) {
    const range = parseRange(entry.trim())
    if (range !== undefined) allowed.push(range)
    else hosts.add(normalHost(entry.trim()))
  }
  return {
    hostAllowed: (host) => hosts.has(normalHost(host)),
    addressAllowed: (address) => {
      const bytes = addressBytes(address)
      if (bytes === undefined) return false
      if (!isInternal(address)) return true
      const seen = effective(bytes)
      return allowed.some((r) => inRange(bytes, r) || inRange(seen, r))
    }
  }
}
