import { describe, expect, it } from "vitest"
import { makeFirstSeen } from "../../src/events/EventBus.ts"

/** The receiver's record of which event numbers it had: copies dropped, late ones kept, memory bounded. */
describe("makeFirstSeen", () => {
  it("lets each origin's number through once, in any order, and numbers 0 always", () => {
    const firstSeen = makeFirstSeen()
    const arrivals: Array<[string, number]> = [["a", 1], ["a", 2], ["b", 7], ["a", 2], ["a", 4], ["a", 3], ["a", 4], ["b", 7], ["a", 1], ["b", 8]]
    expect(arrivals.map(([origin, id]) => firstSeen(origin, id))).toEqual([true, true, true, false, true, true, false, false, false, true])
    expect([firstSeen("a", 0), firstSeen("a", 0)]).toEqual([true, true])
  })

  it("stops waiting for numbers that never come, and still drops copies after", () => {
    const firstSeen = makeFirstSeen()
    expect(firstSeen("a", 1)).toBe(true)
    // Number 2 is lost for good; 10,000 later ones arrive.
    for (let id = 3; id < 10_003; id++) expect(firstSeen("a", id)).toBe(true)
    for (let id = 3; id < 10_003; id += 997) expect(firstSeen("a", id)).toBe(false)
    expect(firstSeen("a", 10_003)).toBe(true)
  })
})
