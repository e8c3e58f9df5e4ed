/**
 * Strength rules for SERVICE_JWT_SECRET and SERVICE_ENCRYPTION_KEY: at least 32 characters, high entropy,
 * no repeated pattern and none of the weak patterns people paste from examples.
 */
export const MIN_SECRET_LENGTH = 32
const MIN_BITS_PER_CHAR = 3.5

const WEAK_WORDS = [
  "password", "passw0rd", "secret", "changeme", "change-me", "change_me", "default", "example", "letmein",
  "qwerty", "123456", "abcdef", "admin", "token", "mattermost", "xxxx", "test"
]

const shannonBitsPerChar = (s: string): number => {
  const counts = new Map<string, number>()
  for (const ch of s) counts.set(ch, (counts.get(ch) ?? 0) + 1)
  let bits = 0
  for (const n of counts.values()) {
    const p = n / s.length
    bits -= p * Math.log2(p)
  }
  return bits
}

/** True when the whole string is one shorter chunk repeated, such as "abcabcabc…". */
const isRepetition = (s: string): boolean => {
  for (let period = 1; period <= s.length / 2; period++) {
    if (s.length % period !== 0) continue
    if (s.slice(0, period).repeat(s.length / period) === s) return true
  }
  return false
}

const hasLongSequence = (s: string, run = 6): boolean => {
  let ascending = 1
  let descending = 1
  let same = 1
  for (let i = 1; i < s.length; i++) {
    const d = s.charCodeAt(i) - s.charCodeAt(i - 1)
    ascending = d === 1 ? ascending + 1 : 1
    descending = d === -1 ? descending + 1 : 1
    same = d === 0 ? same + 1 : 1
    if (ascending >= run || descending >= run || same >= 4) return true
  }
  return false
}

/** Lists what is wrong with a secret; an empty list means it is acceptable. */
export const checkSecretStrength = (secret: string): Array<string> => {
  const problems: Array<string> = []
  if (secret.length < MIN_SECRET_LENGTH) problems.push(`must be at least ${MIN_SECRET_LENGTH} characters (got ${secret.length})`)
  if (isRepetition(secret)) problems.push("is a repeated pattern")
  else if (hasLongSequence(secret)) problems.push("contains a run of repeated or sequential characters")
  const lower = secret.toLowerCase()
  const weak = WEAK_WORDS.find((w) => lower.includes(w))
  if (weak !== undefined) problems.push(`contains the common weak pattern "${weak}"`)
  if (secret.length > 0 && shannonBitsPerChar(secret) < MIN_BITS_PER_CHAR) problems.push("has too little entropy (too few distinct characters)")
  return problems
}
