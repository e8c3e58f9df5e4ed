import type { FileInfo } from "@mattermost/types/files"
import { useEffect, useLayoutEffect, useRef } from "preact/hooks"
import { downloadUrl, fileUrl, type FileKind, KIND_LABEL, previewUrl } from "./kinds.ts"
import { TextViewer } from "./TextViewer.tsx"

/**
 * A post's files, one at a time, over the page (a modal <dialog>: the page behind is inert, Escape closes, focus goes
 * back to what opened it): images at preview size, the browser's players, PDFs in the browser's own viewer (the
 * server serves /preview of a PDF inline and framable by this site only), text and code with line numbers. Previous
 * and Next (or the arrow keys) step through the post's files, round from the last to the first; Download saves the
 * original.
 */
type Props = { files: ReadonlyArray<FileInfo>; kinds: ReadonlyArray<FileKind>; index: number; onIndex: (i: number) => void; onClose: () => void }

const Viewer = ({ file, kind }: { file: FileInfo; kind: FileKind }) => {
  if (kind === "image") {
    const src = file.mime_type === "image/gif" || !file.has_preview_image ? fileUrl(file.id) : previewUrl(file.id)
    return <img class="preview-image" src={src} alt={file.name} />
  }
  if (kind === "video") return <video class="preview-media" controls src={fileUrl(file.id)} aria-label={`Video ${file.name}`} />
  if (kind === "audio") return <audio controls src={fileUrl(file.id)} aria-label={`Audio ${file.name}`} />
  if (kind === "pdf") return <iframe class="preview-pdf" src={previewUrl(file.id)} title={`PDF ${file.name}`} />
  return <TextViewer file={file} />
}

export const PreviewDialog = ({ files, kinds, index, onIndex, onClose }: Props) => {
  const ref = useRef<HTMLDialogElement>(null)
  useLayoutEffect(() => {
    if (!ref.current?.open) ref.current?.showModal()
  }, [])
  // Previous and Next go round: from the last file, Next is the first again.
  const step = (by: number) => onIndex((index + by + files.length) % files.length)
  // On the document, not the dialog: a click on the page's backdrop or a removed button leaves focus on <body>.
  useEffect(() => {
    const keys = (e: KeyboardEvent) => {
      // The players and the text keep their own arrow keys (seeking, scrolling).
      if (e.defaultPrevented || (e.target as Element).closest?.("video, audio, .text-viewer")) return
      if (e.key === "ArrowLeft") step(-1)
      if (e.key === "ArrowRight") step(1)
    }
    document.addEventListener("keydown", keys)
    return () => document.removeEventListener("keydown", keys)
  })
  const file = files[index]
  const kind = kinds[index]
  if (!file) return null
  return (
    <dialog ref={ref} class={`file-preview ${kind}`} aria-label={`${KIND_LABEL[kind]} preview: ${file.name}`} onClose={onClose}
      onClick={(e) => e.target === ref.current && ref.current?.close()}>
      <header>
        <h2 class="file-name" title={file.name}>{file.name}</h2>
        {files.length > 1 && <span class="muted position">{index + 1} of {files.length}</span>}
        {files.length > 1 && (
          <>
            <button type="button" class="icon" aria-label="Previous file" onClick={() => step(-1)}>‹</button>
            <button type="button" class="icon" aria-label="Next file" onClick={() => step(1)}>›</button>
          </>
        )}
        <a class="button secondary" href={downloadUrl(file.id)} download={file.name} aria-label={`Download ${file.name}`}>Download</a>
        <button type="button" class="icon" aria-label="Close preview" autoFocus onClick={() => ref.current?.close()}>✕</button>
      </header>
      <div class="viewer" key={file.id}><Viewer file={file} kind={kind} /></div>
    </dialog>
  )
}
