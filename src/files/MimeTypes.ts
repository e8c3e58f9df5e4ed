/**
 * Content types by extension, as Go's mime.TypeByExtension answers Mattermost for the files people share. Unknown
 * extensions are application/octet-stream.
 */
const TYPES: Record<string, string> = {
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  png: "image/png",
  gif: "image/gif",
  bmp: "image/bmp",
  webp: "image/webp",
  tif: "image/tiff",
  tiff: "image/tiff",
  svg: "image/svg+xml",
  heic: "image/heic",
  ico: "image/x-icon",
  psd: "image/vnd.adobe.photoshop",
  mp4: "video/mp4",
  m4v: "video/x-m4v",
  mov: "video/quicktime",
  webm: "video/webm",
  avi: "video/avi",
  mpeg: "video/mpeg",
  mpg: "video/mpeg",
  mkv: "video/x-matroska",
  mp3: "audio/mpeg",
  m4a: "audio/mp4",
  wav: "audio/wav",
  ogg: "audio/ogg",
  flac: "audio/flac",
  aac: "audio/aac",
  pdf: "application/pdf",
  txt: "text/plain; charset=utf-8",
  md: "text/markdown; charset=utf-8",
  csv: "text/csv; charset=utf-8",
  log: "text/plain; charset=utf-8",
  html: "text/html; charset=utf-8",
  htm: "text/html; charset=utf-8",
  css: "text/css; charset=utf-8",
  js: "text/javascript; charset=utf-8",
  json: "application/json",
  xml: "text/xml; charset=utf-8",
  yaml: "application/yaml",
  yml: "application/yaml",
  zip: "application/zip",
  gz: "application/gzip",
  tar: "application/x-tar",
  "7z": "application/x-7z-compressed",
  rar: "application/vnd.rar",
  doc: "application/msword",
  docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  xls: "application/vnd.ms-excel",
  xlsx: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
  ppt: "application/vnd.ms-powerpoint",
  pptx: "application/vnd.openxmlformats-officedocument.presentationml.presentation",
  odt: "application/vnd.oasis.opendocument.text",
  ods: "application/vnd.oasis.opendocument.spreadsheet",
  odp: "application/vnd.oasis.opendocument.presentation",
  rtf: "application/rtf",
  apk: "application/vnd.android.package-archive"
}

export const mimeTypeFor = (extension: string): string => TYPES[extension] ?? "application/octet-stream"

/** Types a browser may show inline; everything else is served as an attachment (Mattermost's MediaContentTypes). */
const MEDIA_TYPES = ["image/jpeg", "image/png", "image/bmp", "image/gif", "image/tiff", "video/avi", "video/mpeg", "video/mp4", "audio/mpeg", "audio/wav"]

/** Types that would run script in the server's origin; served as text/plain (Mattermost's UnsafeContentTypes). */
const UNSAFE_TYPES = ["application/javascript", "application/ecmascript", "text/javascript", "text/ecmascript", "application/x-javascript", "text/html"]

export const servedContentType = (mimeType: string): string => {
  if (mimeType === "") return "application/octet-stream"
  return UNSAFE_TYPES.some((t) => mimeType.startsWith(t)) ? "text/plain" : mimeType
}

export const isInlineMedia = (contentType: string) => MEDIA_TYPES.some((t) => contentType.startsWith(t))
