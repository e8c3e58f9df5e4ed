import { signal } from "@preact/signals"
import { EMOJI } from "../posts/emoji.ts"
import { customEmoji, customImage, requestCustomEmoji } from "./custom.ts"
import type * as Data from "./data.ts"
import { charOf, splitTone, tonedUnified } from "./tones.ts"

/**
 * How an emoji name shows: a character (system emoji, in the tone its name carries) or an image (a custom emoji).
 * Until the full set is loaded (emoji/data.ts, a lazily loaded chunk) the small built-in table of common names answers,
 * so the first messages render at once; a name it does not know loads the set, then asks the server for a custom emoji.
 * Reading the signals here makes a component that shows emoji re-render when either arrives.
 */
export type Glyph = { readonly kind: "char"; readonly char: string } | { readonly kind: "image"; readonly src: string }

export const systemEmoji = signal<typeof Data | null>(null)

let loading: Promise<typeof Data> | undefined
export const loadSystemEmoji = () =>
  (loading ??= import("./data.ts").then(
    (data) => {
      systemEmoji.value = data
      return data
    },
    (error) => {
      loading = undefined
      throw error
    }
  ))

export const systemGlyph = (data: typeof Data, name: string): string | undefined => {
  const direct = data.BY_NAME.get(name)
  if (direct) return charOf(direct.unified)
  const [base, tone] = splitTone(name)
  const toned = tone === "default" ? undefined : data.BY_NAME.get(base)
  return toned?.tones ? charOf(tonedUnified(toned.unified, tone)) : undefined
}

export const glyph = (name: string): Glyph | undefined => {
  const data = systemEmoji.value
  const char = data ? systemGlyph(data, name) : EMOJI[name]
  if (char) return { kind: "char", char }
  const custom = customEmoji.value[name]
  return custom ? { kind: "image", src: customImage(custom) } : undefined
}

/** A name nothing knows yet: load the full set, and if it is not a system emoji, ask the server. */
export const needEmoji = (name: string) => {
  void loadSystemEmoji().then((data) => {
    if (!systemGlyph(data, name)) requestCustomEmoji(name)
  }, () => undefined)
}

/** The glyph, or undefined after asking for it (the caller re-renders when it arrives). */
export const glyphOrAsk = (name: string) => {
  const found = glyph(name)
  if (!found) needEmoji(name)
  return found
}
