import hljs from "highlight.js/lib/core"
import bash from "highlight.js/lib/languages/bash"
import c from "highlight.js/lib/languages/c"
import cpp from "highlight.js/lib/languages/cpp"
import csharp from "highlight.js/lib/languages/csharp"
import css from "highlight.js/lib/languages/css"
import diff from "highlight.js/lib/languages/diff"
import dockerfile from "highlight.js/lib/languages/dockerfile"
import go from "highlight.js/lib/languages/go"
import ini from "highlight.js/lib/languages/ini"
import java from "highlight.js/lib/languages/java"
import javascript from "highlight.js/lib/languages/javascript"
import json from "highlight.js/lib/languages/json"
import kotlin from "highlight.js/lib/languages/kotlin"
import markdown from "highlight.js/lib/languages/markdown"
import php from "highlight.js/lib/languages/php"
import plaintext from "highlight.js/lib/languages/plaintext"
import python from "highlight.js/lib/languages/python"
import ruby from "highlight.js/lib/languages/ruby"
import rust from "highlight.js/lib/languages/rust"
import shell from "highlight.js/lib/languages/shell"
import sql from "highlight.js/lib/languages/sql"
import swift from "highlight.js/lib/languages/swift"
import typescript from "highlight.js/lib/languages/typescript"
import xml from "highlight.js/lib/languages/xml"
import yaml from "highlight.js/lib/languages/yaml"

/**
 * highlight.js's core with the languages teams paste most (each grammar registers its aliases too: ts, js, py, sh,
 * yml, html...). Loaded lazily by ./highlight.ts.
 */
const LANGUAGES = { bash, c, cpp, csharp, css, diff, dockerfile, go, ini, java, javascript, json, kotlin, markdown, php, plaintext, python, ruby, rust, shell, sql, swift, typescript, xml, yaml }
for (const [name, grammar] of Object.entries(LANGUAGES)) hljs.registerLanguage(name, grammar)

/** Blocks longer than this stay plain: a pasted log of megabytes must not hold the page. */
const MAX_CHARS = 100_000
/** Guessing tries every grammar, so only this much is guessed at (Mattermost guesses too when no language is given). */
const AUTO_MAX_CHARS = 5_000
const AUTO_LANGUAGES = Object.keys(LANGUAGES).filter((l) => l !== "plaintext")

/**
 * The message HTML (already sanitised) with each `<pre><code>` highlighted: the fence's language when highlight.js
 * knows it, else a guess. highlight.js escapes the code it wraps in spans, so the result stays as safe as its input;
 * the HTML is parsed in an inert template (nothing in it loads or runs).
 */
export const highlightHtml = (html: string): string => {
  const template = document.createElement("template")
  template.innerHTML = html
  for (const code of template.content.querySelectorAll<HTMLElement>("pre > code")) {
    const text = code.textContent ?? ""
    if (text.length === 0 || text.length > MAX_CHARS) continue
    const fence = /(?:^|\s)language-([\w+#.-]+)/.exec(code.className)?.[1]?.toLowerCase()
    const known = fence !== undefined && hljs.getLanguage(fence) !== undefined
    if (!known && text.length > AUTO_MAX_CHARS) continue
    const result = known ? hljs.highlight(text, { language: fence!, ignoreIllegals: true }) : hljs.highlightAuto(text, AUTO_LANGUAGES)
    if (result.language === undefined || result.language === "plaintext") continue
    code.innerHTML = result.value
    code.classList.add("hljs")
    code.dataset.language = result.language
  }
  return template.innerHTML
}
