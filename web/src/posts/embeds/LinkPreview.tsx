import type { Post } from "@mattermost/types/posts"
import { useState } from "preact/hooks"
import { client, errorMessage } from "../../app/api.ts"
import { config } from "../../app/state.ts"
import { addPosts } from "../state.ts"
import { imageUrl, safeLink } from "./imageUrl.ts"
import "./embeds.css"

/**
 * The preview of a post's first link, from the OpenGraph data the server stored in `metadata.embeds` (and the image's
 * size in `metadata.images`), drawn as Mattermost's card: site name, linked title, description, and the page's image
 * (large when it is wide, a thumbnail beside the text otherwise). The author may remove it: the post's props get
 * `remove_link_preview`, as the official apps set it, and the server stops serving the preview to everyone.
 */

interface OpenGraphData {
  readonly url?: string
  readonly title?: string
  readonly description?: string
  readonly site_name?: string
  readonly images?: ReadonlyArray<{ readonly url?: string; readonly secure_url?: string; readonly width?: number; readonly height?: number }>
}

/** Images at least this wide show across the card, as Mattermost's large preview. */
const LARGE_MIN_WIDTH = 320

export const LinkPreview = ({ post, mine }: { post: Post; mine: boolean }) => {
  const [error, setError] = useState("")
  const [removing, setRemoving] = useState(false)
  if (config.value.EnableLinkPreviews === "false") return null
  if (Array.isArray(post.props?.attachments) && post.props.attachments.length > 0) return null
  if (post.props?.remove_link_preview === "true") return null
  const remove = async () => {
    setRemoving(true)
    setError("")
    try {
      addPosts([await client.patchPost({ id: post.id, props: { ...post.props, remove_link_preview: "true" } } as unknown as Post)])
    } catch (e) {
      setError(errorMessage(e, "The preview could not be removed"))
      setRemoving(false)
    }
  }
  const removeButton = mine && (
    <button type="button" class="icon link-preview-remove" aria-label="Remove link preview" title="Remove link preview" disabled={removing}
      onClick={() => void remove()}>×</button>
  )
  // A link to a picture itself: the picture, at the size the server measured.
  const image = post.metadata?.embeds?.find((e) => e.type === "image")
  const imageLink = safeLink(image?.url)
  if (image && imageLink) {
    const size = post.metadata?.images?.[image.url]
    return (
      <section class="link-preview image-embed" aria-label="Image preview">
        <a href={imageLink} target="_blank" rel="noopener noreferrer">
          <img class="link-preview-image" src={imageUrl(imageLink)} alt={`Image from ${new URL(imageLink).hostname}`} loading="lazy"
            {...(size ? { width: size.width, height: size.height } : {})} />
        </a>
        {removeButton}
        {error && <p class="alert" role="alert">{error}</p>}
      </section>
    )
  }
  const embed = post.metadata?.embeds?.find((e) => e.type === "opengraph")
  if (!embed) return null
  const data = (embed.data ?? {}) as OpenGraphData
  const link = safeLink(data.url) ?? safeLink(embed.url)
  if (!link || (!data.title && !data.description)) return null
  const first = data.images?.[0]
  const src = first?.secure_url || first?.url
  const size = src ? post.metadata?.images?.[src] : undefined
  const picture = imageUrl(src)
  const large = picture !== undefined && (size?.width ?? first?.width ?? 0) >= LARGE_MIN_WIDTH
  const site = data.site_name || new URL(link).hostname

  return (
    <section class={`link-preview${large ? " large" : ""}`} aria-label={`Link preview: ${data.title || site}`}>
      <div class="link-preview-text">
        <p class="link-preview-site">{site}</p>
        {data.title && <a class="link-preview-title" href={link} target="_blank" rel="noopener noreferrer">{data.title}</a>}
        {data.description && <p class="link-preview-description">{data.description}</p>}
        {picture && large && (
          <img class="link-preview-image" src={picture} alt="" loading="lazy"
            {...(size ? { width: size.width, height: size.height } : {})} />
        )}
      </div>
      {picture && !large && <img class="link-preview-thumb" src={picture} alt="" width={80} height={80} loading="lazy" />}
      {removeButton}
      {error && <p class="alert" role="alert">{error}</p>}
    </section>
  )
}
