import { Effect, Option } from "effect"
import { FileStore } from "../../layers/FileStore.ts"
import * as Images from "./Images.ts"

/**
 * The image columns of a stored file, and the renditions they point to: for an image the decoder reads, the thumbnail
 * and preview are written beside the original (`.../thumb.jpg`, `.../preview.jpg`) and the mini preview goes into the
 * row. Uploads and imported attachments share this, so an imported picture shows in the client as an uploaded one does.
 */
export interface ImageFields {
  readonly width: number
  readonly height: number
  readonly thumbnail_path: string
  readonly preview_path: string
  readonly has_preview_image: boolean
  readonly mini_preview: Uint8Array | null
}

export const NO_IMAGE: ImageFields = { width: 0, height: 0, thumbnail_path: "", preview_path: "", has_preview_image: false, mini_preview: null }

/** `key` is the original's key (`.../<file id>/original`); `written` receives the keys of the renditions stored. */
export const imageFields = (key: string, extension: string, written: Array<string> = []) =>
  Effect.gen(function*() {
    if (!Images.isImageExtension(extension)) return NO_IMAGE
    const store = yield* FileStore
    const image = yield* Effect.flatMap(store.get(key), Images.inspect)
    if (Option.isNone(image)) return NO_IMAGE
    const { width, height, renditions } = image.value
    if (Option.isNone(renditions)) return { ...NO_IMAGE, width, height }
    const folder = key.slice(0, key.lastIndexOf("/"))
    const thumbnailKey = `${folder}/thumb.jpg`
    const previewKey = `${folder}/preview.jpg`
    written.push(thumbnailKey, previewKey)
    yield* store.put(thumbnailKey, renditions.value.thumbnail)
    yield* store.put(previewKey, renditions.value.preview)
    return {
      width,
      height,
      thumbnail_path: thumbnailKey,
      preview_path: previewKey,
      has_preview_image: true,
      mini_preview: renditions.value.miniPreview
    } satisfies ImageFields
  })
