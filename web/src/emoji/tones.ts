/**
 * Skin tones as Mattermost names them: the preference value (category "emoji", name "emoji_skintone") is the
 * modifier's code point or "default", and a toned emoji's name is its short name plus the tone's suffix
 * (`+1_medium_skin_tone`), which is what a reaction or a `:name:` in a message carries.
 */
export const TONES = [
  { value: "default", suffix: "", label: "Default skin tone" },
  { value: "1F3FB", suffix: "light_skin_tone", label: "Light skin tone" },
  { value: "1F3FC", suffix: "medium_light_skin_tone", label: "Medium light skin tone" },
  { value: "1F3FD", suffix: "medium_skin_tone", label: "Medium skin tone" },
  { value: "1F3FE", suffix: "medium_dark_skin_tone", label: "Medium dark skin tone" },
  { value: "1F3FF", suffix: "dark_skin_tone", label: "Dark skin tone" }
] as const

/** Longest suffixes first: `_light_skin_tone` is also the end of `_medium_light_skin_tone`. */
const BY_SUFFIX = TONES.filter((t) => t.suffix !== "").sort((a, b) => b.suffix.length - a.suffix.length)

/** `+1_medium_skin_tone` → ["+1", "1F3FD"]; a name without a tone suffix → [name, "default"]. */
export const splitTone = (name: string): [string, string] => {
  for (const t of BY_SUFFIX) {
    if (name.endsWith(`_${t.suffix}`)) return [name.slice(0, -t.suffix.length - 1), t.value]
  }
  return [name, "default"]
}

export const tonedName = (name: string, tone: string) => {
  const t = TONES.find((x) => x.value === tone)
  return t && t.suffix ? `${name}_${t.suffix}` : name
}

/** The code points of a single-person emoji in a tone: the modifier after the first code point, less a U+FE0F. */
export const tonedUnified = (unified: string, tone: string) => {
  if (tone === "default") return unified
  const [first, ...rest] = unified.split("-")
  if (rest[0] === "FE0F") rest.shift()
  return [first, tone, ...rest].join("-")
}

export const charOf = (unified: string) => String.fromCodePoint(...unified.split("-").map((h) => parseInt(h, 16)))
