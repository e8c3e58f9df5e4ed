import type { FileInfo } from "@mattermost/types/files"
import type { Post } from "@mattermost/types/posts"
import { useState } from "preact/hooks"
import { Icon } from "../ui/Icon.tsx"
import { PreviewDialog } from "./LazyPreview.tsx"
import { downloadUrl, fileUrl, fitInto, type FileKind, kindOf, previewUrl, sizeLabel, thumbnailUrl } from "./kinds.ts"
import "./files.css"

/**
 * A post's files as Mattermost shows them: one image at preview size, several as thumbnails (sized from the file info
 * before they load, so the list does not jump), video and audio in the browser's players (which ask the server for
 * byte ranges), and PDFs, text and code as cards with Preview and Download. Images, media, PDFs and text open in the
 * preview dialog, which steps through the post's previewable files.
 */
const SINGLE = { width: 480, height: 320 }

/** A GIF as itself (it may move), an image without renditions as itself, else the preview or the thumbnail. */
const imageSource = (f: FileInfo, single: boolean) =>
  f.mime_type === "image/gif" || !f.has_preview_image ? fileUrl(f.id) : single ? previewUrl(f.id) : thumbnailUrl(f.id)

/** Thumbnails are at most 120 wide and 100 high (the server's box); a lone image is shown larger. */
const imageSize = (f: FileInfo, single: boolean) => (single ? fitInto(f.width ?? 0, f.height ?? 0, SINGLE.width, SINGLE.height) : fitInto(f.width ?? 0, f.height ?? 0, 120, 100))

const Thumb = ({ file, single, onOpen }: { file: FileInfo; single: boolean; onOpen: () => void }) => {
  const size = imageSize(file, single)
  // The 16x16 mini preview, blurred, stands in while the image loads.
  const placeholder = file.mini_preview ? { backgroundImage: `url(data:image/jpeg;base64,${file.mini_preview})` } : undefined
  return (
    <button type="button" class={single ? "thumb single" : "thumb"} aria-label={`Open image ${file.name}`} onClick={onOpen}>
      <img src={imageSource(file, single)} alt={file.name} width={size.width} height={size.height} loading="lazy" style={placeholder} />
    </button>
  )
}

const Card = ({ file, kind, onOpen }: { file: FileInfo; kind: FileKind; onOpen?: () => void }) => (
  <div class="file-card" role="group" aria-label={file.name}>
    <Icon name="paperclip" />
    <span class="file-name" title={file.name}>{file.name}</span>
    <span class="muted">{sizeLabel(file.size ?? 0)}</span>
    {onOpen && <button type="button" class="link" aria-label={`Preview ${file.name}`} onClick={onOpen}>Preview</button>}
    <a href={downloadUrl(file.id)} download={file.name} aria-label={`Download ${file.name}`}>Download</a>
  </div>
)

export const FileAttachments = ({ post }: { post: Post }) => {
  const files = post.metadata?.files ?? []
  const [open, setOpen] = useState<number | null>(null)
  if (files.length === 0) return null
  const kinds = files.map(kindOf)
  const previewable = files.filter((_, i) => kinds[i] !== "other")
  const openFile = (f: FileInfo) => setOpen(previewable.indexOf(f))
  const images = kinds.filter((k) => k === "image").length
  return (
    <div class="files" role="list" aria-label="Files">
      {files.map((f, i) => {
        const kind = kinds[i]
        return (
          <div role="listitem" key={f.id} class={`file-item ${kind}`}>
            {kind === "image" ? (
              <Thumb file={f} single={images === 1} onOpen={() => openFile(f)} />
            ) : kind === "video" ? (
              <figure class="media">
                <video controls preload="metadata" src={fileUrl(f.id)} aria-label={`Video ${f.name}`} />
                <Card file={f} kind={kind} onOpen={() => openFile(f)} />
              </figure>
            ) : kind === "audio" ? (
              <figure class="media">
                <audio controls preload="metadata" src={fileUrl(f.id)} aria-label={`Audio ${f.name}`} />
                <Card file={f} kind={kind} />
              </figure>
            ) : (
              <Card file={f} kind={kind} onOpen={kind === "other" ? undefined : () => openFile(f)} />
            )}
          </div>
        )
      })}
      {open !== null && open >= 0 && (
        <PreviewDialog files={previewable} kinds={previewable.map(kindOf)} index={open} onIndex={setOpen} onClose={() => setOpen(null)} />
      )}
    </div>
  )
}
