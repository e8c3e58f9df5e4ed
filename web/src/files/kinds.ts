import type { FileInfo } from "@mattermost/types/files"

/**
 * How a shared file shows: an image (thumbnail or preview inline, a larger view in the preview dialog), a video or
 * audio player when the browser can play the type, a PDF in the browser's own viewer, a text or code file in the text
 * viewer, anything else as a download.
 */
export type FileKind = "image" | "video" | "audio" | "pdf" | "text" | "other"

const TEXT_TYPES = ["application/json", "application/xml", "application/yaml", "application/x-yaml", "application/javascript", "application/x-sh", "application/sql", "application/toml"]

/** Code and text files servers type as octet-stream (or worse: Go calls .ts MPEG transport stream). */
const TEXT_EXTENSIONS = new Set([
  "txt", "md", "markdown", "log", "csv", "tsv", "json", "jsonl", "yaml", "yml", "toml", "ini", "cfg", "conf", "env", "xml", "html", "htm", "css", "scss", "less",
  "js", "mjs", "cjs", "jsx", "ts", "tsx", "py", "rb", "go", "rs", "java", "kt", "kts", "scala", "swift", "c", "h", "cc", "cpp", "hpp", "cs", "php", "pl", "lua",
  "sh", "bash", "zsh", "fish", "ps1", "bat", "sql", "graphql", "proto", "diff", "patch", "dockerfile", "makefile", "gradle", "r", "ex", "exs", "erl", "hs",
  "clj", "dart", "vue", "svelte", "tf", "nix", "properties", "gitignore", "editorconfig", "srt", "vtt"
])

const playable = (tag: "video" | "audio", mime: string) => typeof document !== "undefined" && document.createElement(tag).canPlayType(mime) !== ""

export const kindOf = (file: Pick<FileInfo, "mime_type" | "extension" | "name">): FileKind => {
  const mime = (file.mime_type ?? "").toLowerCase()
  const ext = (file.extension || file.name.split(".").pop() || "").toLowerCase()
  if (mime.startsWith("image/") && mime !== "image/vnd.adobe.photoshop" && mime !== "image/tiff" && mime !== "image/heic") return "image"
  if (mime.startsWith("video/") && playable("video", mime)) return "video"
  if (mime.startsWith("audio/") && playable("audio", mime)) return "audio"
  if (mime === "application/pdf") return "pdf"
  if (mime.startsWith("text/") || TEXT_TYPES.includes(mime.split(";")[0]) || TEXT_EXTENSIONS.has(ext)) return "text"
  return "other"
}

export const fileUrl = (id: string) => `/api/v4/files/${id}`
export const downloadUrl = (id: string) => `/api/v4/files/${id}?download=1`
export const previewUrl = (id: string) => `/api/v4/files/${id}/preview`
export const thumbnailUrl = (id: string) => `/api/v4/files/${id}/thumbnail`

/** The largest size within a box keeping the image's proportions, never enlarged. */
export const fitInto = (width: number, height: number, maxWidth: number, maxHeight: number) => {
  if (!(width > 0 && height > 0)) return { width: maxWidth, height: maxHeight }
  const scale = Math.min(1, maxWidth / width, maxHeight / height)
  return { width: Math.max(1, Math.round(width * scale)), height: Math.max(1, Math.round(height * scale)) }
}

export const sizeLabel = (bytes: number) =>
  bytes < 1024 ? `${bytes} B` : bytes < 1024 * 1024 ? `${Math.ceil(bytes / 1024)} KB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`

export const KIND_LABEL: Record<FileKind, string> = { image: "Image", video: "Video", audio: "Audio", pdf: "PDF", text: "Text", other: "File" }
