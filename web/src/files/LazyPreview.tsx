import type { FileInfo } from "@mattermost/types/files"
import { createPortal } from "preact/compat"
import { useEffect, useState } from "preact/hooks"
import type { FileKind } from "./kinds.ts"

/**
 * The preview dialog and its viewers, loaded on first open (they are not part of the first load), rendered at the end
 * of <body>: inside the post its keys, clicks and hover would reach the post's own handlers and styles.
 */
type Props = { files: ReadonlyArray<FileInfo>; kinds: ReadonlyArray<FileKind>; index: number; onIndex: (i: number) => void; onClose: () => void }
type Dialog = (props: Props) => preact.JSX.Element | null

let loaded: Dialog | undefined

export const PreviewDialog = (props: Props) => {
  const [Loaded, setLoaded] = useState<Dialog | undefined>(() => loaded)
  useEffect(() => {
    if (!Loaded) import("./PreviewDialog.tsx").then((m) => setLoaded(() => (loaded = m.PreviewDialog)), props.onClose)
  }, [])
  return Loaded ? createPortal(<Loaded {...props} />, document.body) : null
}
