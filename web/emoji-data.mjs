// The emoji set of the web client, made at build time from emoji-datasource (iamcal's emoji-data, the source of the
// emoji names Mattermost's apps use: taco, +1 / thumbsup, smile). The package's emoji.json is 1.3 MB of fields the
// client never reads (vendor codes, sprite positions); the client imports the virtual module "emoji-data:compact"
// instead, a few dozen KB compressed, in a chunk of its own that is fetched on first use (never in the first load).
import { readFileSync } from "node:fs"
import { createRequire } from "node:module"

const TONES = ["1F3FB", "1F3FC", "1F3FD", "1F3FE", "1F3FF"]

/** The tone of a single-person emoji is the modifier after its first code point, less a presentation selector. */
const toned = (unified, tone) => {
  const [first, ...rest] = unified.split("-")
  if (rest[0] === "FE0F") rest.shift()
  return [first, tone, ...rest].join("-")
}

/**
 * [categories, entries]: each entry [unified, short names joined by spaces, category index, keywords, flags], sorted
 * as Mattermost's picker sorts (emoji-data's sort_order). Keywords are the words of the Unicode name and of the
 * subcategory ("THUMBS UP SIGN", "hand-fingers-closed"). Flags: 1 when all five skin tones follow the single-person
 * rule above (checked here, so the client can derive them); 2 when the emoji is newer than Emoji 15.0, which many
 * systems' fonts cannot draw yet (the picker leaves those out; a message that names one still shows it).
 */
export const compactEmojiData = () => {
  const require = createRequire(import.meta.url)
  const raw = JSON.parse(readFileSync(require.resolve("emoji-datasource/emoji.json"), "utf8"))
  raw.sort((a, b) => a.sort_order - b.sort_order)
  const categories = []
  const entries = raw.map((e) => {
    let category = categories.indexOf(e.category)
    if (category < 0) category = categories.push(e.category) - 1
    const keywords = [...new Set(`${e.name ?? ""} ${e.subcategory ?? ""}`.toLowerCase().split(/[^a-z0-9]+/).filter((w) => w.length > 1))].join(" ")
    const variations = e.skin_variations ?? {}
    const tone = TONES.every((t) => variations[t]?.unified === toned(e.unified, t)) ? 1 : 0
    const recent = Number(e.added_in) > 15 ? 2 : 0
    return [e.unified, e.short_names.join(" "), category, keywords, tone | recent]
  })
  return [categories, entries]
}

/** esbuild: `import data from "emoji-data:compact"` gives the compact set as a JSON module. */
export const emojiDataPlugin = {
  name: "emoji-data",
  setup(build) {
    build.onResolve({ filter: /^emoji-data:compact$/ }, () => ({ path: "compact", namespace: "emoji-data" }))
    build.onLoad({ filter: /.*/, namespace: "emoji-data" }, () => ({ contents: JSON.stringify(compactEmojiData()), loader: "json" }))
  }
}
