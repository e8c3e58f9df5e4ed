import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as ImagesLayer from "../../layers/Images.ts"

const images = ImagesLayer.sharpImages

describe("Images (sharp)", () => {
  it.effect("encodes raw pixels, reads their size back and renders each rendition in order", () =>
    Effect.gen(function*() {
      const png = yield* images.pngFromRgb(new Uint8Array(40 * 20 * 3).fill(200), 40, 20)
      expect(yield* images.metadata(png)).toEqual({ width: 40, height: 20, orientation: 1, format: "png", frames: 1 })
      const [small, square] = yield* images.render(png, 10_000, [
        { resize: { width: 10 }, output: { format: "jpeg", quality: 90, background: "#ffffff" } },
        { resize: { width: 8, height: 8, fit: "cover" }, output: { format: "png" } }
      ])
      expect(yield* images.metadata(small)).toMatchObject({ width: 10, height: 5 })
      expect(Array.from(small.slice(0, 3))).toEqual([0xff, 0xd8, 0xff])
      expect(yield* images.metadata(square)).toMatchObject({ width: 8, height: 8 })
    }))

  it.effect("fails with ImageError on bytes that are not an image and on images over the pixel limit", () =>
    Effect.gen(function*() {
      expect((yield* Effect.flip(images.metadata(new TextEncoder().encode("not an image"))))._tag).toBe("ImageError")
      const png = yield* images.pngFromRgb(new Uint8Array(40 * 20 * 3), 40, 20)
      expect((yield* Effect.flip(images.render(png, 100, [{ output: { format: "png" } }])))._tag).toBe("ImageError")
    }))
})
