import { describe, expect, it } from "vitest"
import { RowMismatch } from "../../layers/Rows.ts"
import { HydratedRows } from "../../src/posts/PostRepo.ts"

/**
 * The channel posts page decodes every post row through PostRepo's hydrating Schema; it must stay on layers/Rows.ts's
 * compiled path (about 1 µs a row), not fall back to Effect's parser (some 150 µs a row), which a refinement or a
 * nested struct in the Schema would cause.
 */
const driverRow = (n: number, overrides: Record<string, unknown> = {}) => ({
  id: `post${String(n).padStart(22, "0")}`,
  create_at: "1700000000000",
  update_at: "1700000000000",
  edit_at: "0",
  delete_at: "0",
  is_pinned: false,
  user_id: "u".repeat(26),
  channel_id: "c".repeat(26),
  root_id: "",
  original_id: "",
  message: "hello",
  type: "",
  props: {},
  hashtags: "",
  file_ids: [],
  pending_post_id: "",
  has_reactions: false,
  link_preview: null,
  reply_count: "0",
  last_reply_at: null,
  participants: null,
  is_following: null,
  reactions: null,
  emojis: null,
  files: null,
  acknowledgements: null,
  priority: null,
  participant_users: null,
  ...overrides
})

describe("hydrated post rows", () => {
  it("keep the driver's values: bigints as text, NULL metadata as null", () => {
    const page = [
      driverRow(1),
      driverRow(2, {
        root_id: "r".repeat(26),
        reply_count: "3",
        last_reply_at: "1700000000005",
        participants: ["u".repeat(26)],
        is_following: true,
        reactions: [{ user_id: "u".repeat(26), emoji_name: "smile" }],
        priority: { priority: "urgent", requested_ack: true }
      })
    ]
    const decoded = HydratedRows.decode(page)
    expect(decoded).toHaveLength(2)
    expect(decoded).toEqual(page)
  })

  it("of a 60-post page decode in well under a millisecond (the compiled decoder)", () => {
    const page = Array.from({ length: 60 }, (_, i) => driverRow(i))
    for (let i = 0; i < 2_000; i++) HydratedRows.decode(page) // warm up
    const runs = 5_000
    const start = performance.now()
    for (let i = 0; i < runs; i++) HydratedRows.decode(page)
    const micros = ((performance.now() - start) * 1000) / runs
    console.log(`rows: 60 hydrated post rows decoded in ${micros.toFixed(1)} µs`)
    expect(micros).toBeLessThan(1_000)
  })

  it("that do not match their Schema are a RowMismatch naming the statement", () => {
    expect(() => HydratedRows.decode([driverRow(1, { is_pinned: "t" })])).toThrow(RowMismatch)
    expect(() => HydratedRows.decode([driverRow(1, { props: null })])).toThrow(/PostRepo hydrate/)
  })
})
