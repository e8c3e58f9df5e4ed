import DOMPurify from "dompurify"
import { Marked } from "marked"
import { glyphOrAsk, systemEmoji } from "../emoji/catalog.ts"
import { customEmoji } from "../emoji/custom.ts"

/**
 * Markdown as Mattermost writes it (GFM: code blocks, tables, links, strikethrough) plus @mentions, ~channels and
 * :emoji:, always passed through DOMPurify: a message is someone else's input and must never run in our origin.
 * Rendering is cached per message text, since a channel re-renders the same posts many times.
 */
const SPECIAL_MENTIONS = new Set(["all", "here", "channel"])

const marked = new Marked({ gfm: true, breaks: true, async: false })

marked.use({
  extensions: [
    {
      name: "mention",
      level: "inline",
      start: (src: string) => src.search(/[@~]/),
      tokenizer(src: string) {
        const m = /^([@~])([a-z0-9][a-z0-9._-]*[a-z0-9]|[a-z0-9])/i.exec(src)
        if (!m) return undefined
        return { type: "mention", raw: m[0], sigil: m[1], name: m[2] }
      },
      renderer(token: any) {
        // @all, @here and @channel name nobody in particular; a person opens their profile, a channel is a link.
        if (token.sigil === "@" && SPECIAL_MENTIONS.has(token.name.toLowerCase())) return `<span class="mention">@${token.name}</span>`
        const cls = token.sigil === "@" ? "mention" : "channel-link"
        return `<a class="${cls}" href="#${token.sigil}${token.name}" data-name="${token.name}">${token.sigil}${token.name}</a>`
      }
    },
    {
      name: "emoji",
      level: "inline",
      start: (src: string) => src.indexOf(":"),
      tokenizer(src: string) {
        // A name nothing knows yet stays text; asking for it (the full set, then the server's custom emoji) re-renders
        // the message when the answer comes (the cache below is dropped when either changes).
        const m = /^:([a-z0-9_+-]+):/.exec(src)
        const glyph = m ? glyphOrAsk(m[1]) : undefined
        if (!m || !glyph) return undefined
        return { type: "emoji", raw: m[0], name: m[1], glyph }
      },
      renderer(token: any) {
        if (token.glyph.kind === "image") return `<img class="emoji custom" src="${token.glyph.src}" alt=":${token.name}:" title=":${token.name}:">`
        return `<span class="emoji" role="img" aria-label="${token.name}" title=":${token.name}:">${token.glyph.char}</span>`
      }
    }
  ]
})

DOMPurify.addHook("afterSanitizeAttributes", (node) => {
  // In-app links (#@user, #~channel) are handled by the post's click handler; every other link opens a new tab.
  if (node.tagName === "A" && !(node.getAttribute("href") ?? "").startsWith("#")) {
    node.setAttribute("target", "_blank")
    node.setAttribute("rel", "noopener noreferrer")
  }
  // A code block wider than the message scrolls sideways: keyboard users must be able to focus it to scroll it.
  if (node.tagName === "PRE") node.setAttribute("tabindex", "0")
  // Remote images would leak readers' addresses to whoever posted them; they show as links instead.
  if (node.tagName === "IMG") {
    const src = node.getAttribute("src") ?? ""
    if (!src.startsWith("/") || src.startsWith("//")) {
      node.removeAttribute("src")
      node.setAttribute("alt", `[image: ${node.getAttribute("alt") ?? ""}]`)
    }
  }
})

const cache = new Map<string, string>()

/**
 * What can make a message more than plain text: markdown and HTML characters, entities, mentions, channel links,
 * emoji, autolinks (www., scheme:), and block markers at a line start (lists, setext rules, numbered items).
 */
const SPECIAL = /[\\`*_{}\[\]()#!|<>&~@:\/]|www\.|^\s|\s$|(^|\n)\s*([-+=]|\d+[.)])/i

const escapeText = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")

let emojiSets: [unknown, unknown] = [null, null]

export const renderMarkdown = (text: string): string => {
  // Reading the emoji signals makes the calling component re-render when the emoji set or a custom emoji arrives.
  const sets: [unknown, unknown] = [systemEmoji.value, customEmoji.value]
  if (sets[0] !== emojiSets[0] || sets[1] !== emojiSets[1]) {
    cache.clear()
    emojiSets = sets
  }
  const hit = cache.get(text)
  if (hit !== undefined) return hit
  // Most chat lines are plain words: no parser and no sanitiser needed (the escaped text is what marked would give).
  const html = !SPECIAL.test(text) ? `<p>${escapeText(text).replace(/\n/g, "<br>")}</p>` : DOMPurify.sanitize(marked.parse(text) as string, { FORBID_TAGS: ["style", "form", "input", "button"], FORBID_ATTR: ["style"] })
  if (cache.size > 2000) cache.clear()
  cache.set(text, html)
  return html
}
