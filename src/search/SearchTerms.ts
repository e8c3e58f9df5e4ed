/**
 * Mattermost's search syntax (model/search_params.go): words, "exact phrases", trailing-* prefixes, #hashtags, a
 * leading - to exclude any of them, and the flags from:, in: (or channel:), before:, after:, on:, ext: (files), each
 * also negatable with a leading -, whose value may follow the colon or be the next word. Pure: no I/O.
 */
export type TermKind = "word" | "phrase" | "prefix" | "hashtag"

export interface Term {
  readonly kind: TermKind
  /** Without quotes, the trailing * or the leading #. */
  readonly text: string
}

export interface Flag {
  readonly values: ReadonlyArray<string>
  readonly excluded: ReadonlyArray<string>
}

export interface ParsedSearch {
  readonly terms: ReadonlyArray<Term>
  readonly excludedTerms: ReadonlyArray<Term>
  readonly from: Flag
  readonly in: Flag
  readonly ext: Flag
  /** The last date of each flag, as written (YYYY-MM-DD, zero padding optional). */
  readonly dates: {
    readonly after?: string
    readonly before?: string
    readonly on?: string
    readonly excludedAfter?: string
    readonly excludedBefore?: string
    readonly excludedOn?: string
  }
}

const FLAGS = ["from", "channel", "in", "before", "after", "on", "ext"] as const
type FlagName = typeof FLAGS[number]

const PUNCTUATION_START = /^[^\p{L}\p{N}\s#"]+/u
const PUNCTUATION_END = /[^\p{L}\p{N}\s*"]+$/u
const HASHTAG = /^#\p{L}[\p{L}\p{N}\-_.]*[\p{L}\p{N}]$/u

/** Splits on whitespace, keeping each "quoted phrase" (with a - just before it) as one word. */
const splitWords = (text: string): Array<string> => {
  const words: Array<string> = []
  const fields = (s: string) => s.split(/\s+/).filter((w) => w !== "")
  let inQuote = false
  let start = 0
  for (let i = 0; i < text.length; i++) {
    if (text[i] !== "\"") continue
    if (inQuote) {
      words.push(text.slice(start, i + 1))
      inQuote = false
      start = i + 1
    } else {
      const quoteStart = i > 0 && text[i - 1] === "-" ? i - 1 : i
      words.push(...fields(text.slice(start, quoteStart)))
      inQuote = true
      start = quoteStart
    }
  }
  words.push(...fields(text.slice(start)))
  return words
}

const classify = (word: string): Term | undefined => {
  if (word.length >= 2 && word.startsWith("\"") && word.endsWith("\"")) {
    const text = word.slice(1, -1).trim()
    return text === "" ? undefined : { kind: "phrase", text }
  }
  const unquoted = word.replaceAll("\"", "")
  if (HASHTAG.test(unquoted)) return { kind: "hashtag", text: unquoted.slice(1) }
  if (unquoted.endsWith("*")) {
    const text = unquoted.replace(/\*+$/, "")
    return text === "" ? undefined : { kind: "prefix", text }
  }
  const text = unquoted.replace(/^#+/, "")
  return text === "" ? undefined : { kind: "word", text }
}

export const parseSearch = (input: string): ParsedSearch => {
  const words = splitWords(input)
  const terms: Array<Term> = []
  const excludedTerms: Array<Term> = []
  const flags = new Map<FlagName, { values: Array<string>; excluded: Array<string> }>(
    FLAGS.map((f) => [f, { values: [], excluded: [] }])
  )
  for (let i = 0; i < words.length; i++) {
    const word = words[i]
    const colon = word.startsWith("\"") ? -1 : word.indexOf(":")
    if (colon > 0) {
      const exclude = word.startsWith("-")
      const name = word.slice(exclude ? 1 : 0, colon).toLowerCase()
      const flag = FLAGS.find((f) => f === name)
      if (flag !== undefined) {
        let value = word.slice(colon + 1)
        if (value === "" && i < words.length - 1) value = words[++i]
        if (value !== "") {
          const entry = flags.get(flag)!
          ;(exclude ? entry.excluded : entry.values).push(value)
          continue
        }
      }
    }
    const exclude = word.startsWith("-")
    const cleaned = word.replace(PUNCTUATION_START, "").replace(PUNCTUATION_END, "").replace(/^#+/, "#")
    if (cleaned === "") continue
    const term = classify(cleaned)
    if (term !== undefined) (exclude ? excludedTerms : terms).push(term)
  }
  const get = (name: FlagName) => flags.get(name)!
  const last = (values: ReadonlyArray<string>) => values.length === 0 ? undefined : values[values.length - 1]
  return {
    terms,
    excludedTerms,
    from: get("from"),
    in: { values: [...get("in").values, ...get("channel").values], excluded: [...get("in").excluded, ...get("channel").excluded] },
    ext: get("ext"),
    dates: {
      after: last(get("after").values),
      before: last(get("before").values),
      on: last(get("on").values),
      excludedAfter: last(get("after").excluded),
      excludedBefore: last(get("before").excluded),
      excludedOn: last(get("on").excluded)
    }
  }
}

/** Every term and flag value of a search: what becomes a tsquery, a recheck or a lookup of its own. */
export const termCount = (parsed: ParsedSearch) =>
  parsed.terms.length + parsed.excludedTerms.length +
  [parsed.from, parsed.in, parsed.ext].reduce((n, f) => n + f.values.length + f.excluded.length, 0) +
  Object.values(parsed.dates).filter((d) => d !== undefined).length

const DAY_MS = 86_400_000

/** Milliseconds of 00:00 of a YYYY-MM-DD day at a UTC offset (seconds east); undefined when not a date. */
export const startOfDay = (date: string, offsetSeconds: number): number | undefined => {
  const match = /^(\d{4})-(\d{1,2})-(\d{1,2})$/.exec(date)
  if (match === null) return undefined
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])]
  const utc = Date.UTC(year, month - 1, day)
  const check = new Date(utc)
  if (check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day) return undefined
  return utc - offsetSeconds * 1000
}

/**
 * Mattermost's day arithmetic: after:D is from the start of the next day, before:D up to the end of the previous day,
 * on:D the whole day, all in the searcher's time zone.
 */
export const dateRanges = (dates: ParsedSearch["dates"], offsetSeconds: number) => {
  const start = (d: string | undefined) => d === undefined ? undefined : startOfDay(d, offsetSeconds)
  const ranges: Array<{ readonly from?: number; readonly to?: number; readonly negate: boolean }> = []
  const after = start(dates.after)
  if (after !== undefined) ranges.push({ from: after + DAY_MS, negate: false })
  const before = start(dates.before)
  if (before !== undefined) ranges.push({ to: before - 1, negate: false })
  const on = start(dates.on)
  if (on !== undefined) ranges.push({ from: on, to: on + DAY_MS - 1, negate: false })
  const exAfter = start(dates.excludedAfter)
  if (exAfter !== undefined) ranges.push({ from: exAfter + DAY_MS, negate: true })
  const exBefore = start(dates.excludedBefore)
  if (exBefore !== undefined) ranges.push({ to: exBefore - 1, negate: true })
  const exOn = start(dates.excludedOn)
  if (exOn !== undefined) ranges.push({ from: exOn, to: exOn + DAY_MS - 1, negate: true })
  return ranges
}
