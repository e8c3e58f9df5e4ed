import { signal } from "@preact/signals"
import "./highlight.css"

/**
 * Syntax highlighting of a message's code blocks. highlight.js and its grammars are a chunk of their own
 * (./languages.ts), fetched the first time a message with a code block is drawn: most channels never need it, and the
 * first load stays within its budget. Until it arrives the block shows as plain code; then every post that drew one
 * draws again (it read `loaded`), highlighted. Results are cached per message HTML, as the markdown is.
 */
const loaded = signal(0)
let highlightHtml: ((html: string) => string) | undefined
let loading: Promise<void> | undefined
const cache = new Map<string, string>()

const load = () => {
  loading ??= import("./languages.ts").then(
    (module) => {
      highlightHtml = module.highlightHtml
      loaded.value++
    },
    () => {
      // A failed fetch (offline): try again with the next code block drawn.
      loading = undefined
    }
  )
}

export const highlighted = (html: string): string => {
  if (!html.includes("<pre")) return html
  void loaded.value
  if (highlightHtml === undefined) {
    load()
    return html
  }
  let hit = cache.get(html)
  if (hit === undefined) {
    hit = highlightHtml(html)
    if (cache.size > 500) cache.clear()
    cache.set(html, hit)
  }
  return hit
}
