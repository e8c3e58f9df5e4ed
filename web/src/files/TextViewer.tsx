import type { FileInfo } from "@mattermost/types/files"
import { useEffect, useState } from "preact/hooks"
import { fileUrl, sizeLabel } from "./kinds.ts"

/**
 * The first 256 KB of a text or code file (one byte-range request, so a large log costs no more), with line numbers,
 * highlighted by highlight.js (the grammars of posts/code, loaded on first use) when the extension names a language it knows and the text is
 * short enough to highlight at once.
 */
const LIMIT = 256 * 1024
const HIGHLIGHT_LIMIT = 100 * 1024

type Loaded = { text: string; total: number; html?: string }

const load = async (file: FileInfo, signal: AbortSignal): Promise<Loaded> => {
  const response = await fetch(fileUrl(file.id), {
    credentials: "same-origin",
    headers: { range: `bytes=0-${LIMIT - 1}`, "x-requested-with": "XMLHttpRequest" },
    signal
  })
  if (!response.ok) throw new Error(`The file could not be read (${response.status}).`)
  const bytes = new Uint8Array(await response.arrayBuffer())
  const total = Number(response.headers.get("content-range")?.split("/")[1] ?? bytes.length) || bytes.length
  let text = new TextDecoder("utf-8").decode(bytes)
  // A cut file ends at its last whole line (the cut may split a line or a character).
  if (total > bytes.length && text.includes("\n")) text = text.slice(0, text.lastIndexOf("\n"))
  return { text, total }
}

const highlight = async (text: string, extension: string) => {
  if (text.length > HIGHLIGHT_LIMIT || extension === "" || extension === "txt" || extension === "log") return undefined
  // The grammars messages use (posts/code/languages.ts registers them on highlight.js's core): one shared chunk.
  const [{ default: hljs }] = await Promise.all([import("highlight.js/lib/core"), import("../posts/code/languages.ts")])
  if (!hljs.getLanguage(extension)) return undefined
  // highlight.js escapes the text it is given; its output is spans of classes only.
  return hljs.highlight(text, { language: extension, ignoreIllegals: true }).value
}

export const TextViewer = ({ file }: { file: FileInfo }) => {
  const [state, setState] = useState<Loaded | { error: string } | null>(null)
  useEffect(() => {
    const abort = new AbortController()
    const extension = (file.extension || "").toLowerCase()
    load(file, abort.signal)
      .then(async (loaded) => {
        setState(loaded)
        const html = await highlight(loaded.text, extension).catch(() => undefined)
        if (html !== undefined && !abort.signal.aborted) setState({ ...loaded, html })
      })
      .catch((e: unknown) => !abort.signal.aborted && setState({ error: e instanceof Error ? e.message : "The file could not be read." }))
    return () => abort.abort()
  }, [file.id])
  if (state === null) return <p class="muted" role="status">Loading {file.name}…</p>
  if ("error" in state) return <p class="error" role="alert">{state.error}</p>
  const lines = state.text.replace(/\n$/, "").split("\n")
  const cut = state.total > LIMIT
  return (
    <div class="text-file">
      {cut && <p class="muted" role="note">Showing the first {sizeLabel(LIMIT)} of {sizeLabel(state.total)}. Download the file for the rest.</p>}
      <div class="text-viewer" role="region" aria-label={`Contents of ${file.name}`} tabIndex={0}>
        <pre class="line-numbers" aria-hidden="true">{lines.map((_, i) => i + 1).join("\n")}</pre>
        {state.html !== undefined
          ? <pre class="code hljs"><code dangerouslySetInnerHTML={{ __html: state.html }} /></pre>
          : <pre class="code"><code>{state.text}</code></pre>}
      </div>
    </div>
  )
}
