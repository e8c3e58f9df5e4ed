import { describe, expect, it } from "vitest"
import { dateRanges, parseSearch, startOfDay } from "../../src/search/SearchTerms.ts"

describe("parseSearch (Mattermost's search syntax)", () => {
  it("splits words, phrases, prefixes, hashtags and exclusions, trimming punctuation", () => {
    const parsed = parseSearch(`deploy, "release notes" -"old notes" build* #ship -#wip -legacy ##double (paren)`)
    expect(parsed.terms).toEqual([
      { kind: "word", text: "deploy" },
      { kind: "phrase", text: "release notes" },
      { kind: "prefix", text: "build" },
      { kind: "hashtag", text: "ship" },
      { kind: "hashtag", text: "double" },
      { kind: "word", text: "paren" }
    ])
    expect(parsed.excludedTerms).toEqual([
      { kind: "phrase", text: "old notes" },
      { kind: "hashtag", text: "wip" },
      { kind: "word", text: "legacy" }
    ])
  })

  it("reads flags with the value after the colon or as the next word, case-insensitively, and their negations", () => {
    const parsed = parseSearch("FROM:alice from: bob -from:carol in:town-square channel:~dev -in:@dave before:2024-01-31 after:2024-1-1 on:2024-01-15 ext:pdf -ext:png word")
    expect(parsed.from).toEqual({ values: ["alice", "bob"], excluded: ["carol"] })
    expect(parsed.in).toEqual({ values: ["town-square", "~dev"], excluded: ["@dave"] })
    expect(parsed.ext).toEqual({ values: ["pdf"], excluded: ["png"] })
    expect(parsed.dates).toMatchObject({ before: "2024-01-31", after: "2024-1-1", on: "2024-01-15" })
    expect(parsed.terms).toEqual([{ kind: "word", text: "word" }])
  })

  it("keeps unknown flags and colons inside phrases as terms", () => {
    expect(parseSearch(`"at 10:30" http:thing`).terms).toEqual([
      { kind: "phrase", text: "at 10:30" },
      { kind: "word", text: "http:thing" }
    ])
  })
})

describe("search dates", () => {
  it("takes days in the searcher's offset and rejects impossible dates", () => {
    expect(startOfDay("2024-03-11", 0)).toBe(Date.UTC(2024, 2, 11))
    expect(startOfDay("2024-03-11", 3600)).toBe(Date.UTC(2024, 2, 11) - 3_600_000)
    expect(startOfDay("2024-02-30", 0)).toBeUndefined()
    expect(startOfDay("yesterday", 0)).toBeUndefined()
    const day = Date.UTC(2024, 2, 11)
    expect(dateRanges({ after: "2024-03-11", before: "2024-03-11", on: "2024-03-11" }, 0)).toEqual([
      { from: day + 86_400_000, negate: false },
      { to: day - 1, negate: false },
      { from: day, to: day + 86_400_000 - 1, negate: false }
    ])
  })
})
