import { Parser } from "htmlparser2"

/**
 * A page's OpenGraph data in the shape Mattermost's server answers it (go-opengraph's JSON, trimmed as
 * Mattermost's TruncateOpenGraph does: the first image only, title and description at most 300 characters), which
 * the official web and mobile apps read from `metadata.embeds[].data` and from POST /api/v4/opengraph.
 */
export interface OpenGraphImage {
  readonly url: string
  readonly secure_url?: string
  readonly type?: string
  readonly width?: number
  readonly height?: number
}

export interface OpenGraph {
  readonly type: string
  readonly url: string
  readonly title: string
  readonly description: string
  readonly site_name: string
  readonly images: ReadonlyArray<OpenGraphImage>
}

/**
 * Only this much of a page is parsed: OpenGraph tags belong in <head>, which comes first, and a page can be large
 * (the fetch accepts up to LinkPreviews' size cap). Parsing also stops at the end of <head> or the start of <body>.
 */
export const HEAD_LIMIT = 256 * 1024
const TEXT_MAX = 300

const truncate = (text: string) => {
  const chars = [...text.trim()]
  return chars.length > TEXT_MAX ? chars.slice(0, TEXT_MAX - 3).join("") + "..." : chars.join("")
}

const absolute = (raw: string, base: string): string | undefined => {
  try {
    const url = new URL(raw.trim(), base)
    return url.protocol === "http:" || url.protocol === "https:" ? url.toString() : undefined
  } catch {
    return undefined
  }
}

const dimension = (raw: string) => {
  const n = Number.parseInt(raw, 10)
  return Number.isSafeInteger(n) && n > 0 ? n : undefined
}

/**
 * The OpenGraph data of `html` (the page at `pageUrl`, which resolves relative image URLs), or undefined when the
 * page has no title, description or image to show.
 */
export const parseOpenGraph = (html: string, pageUrl: string): OpenGraph | undefined => {
  const fields: Record<string, string> = {}
  const images: Array<{ url?: string; secure_url?: string; type?: string; width?: number; height?: number }> = []
  let done = false
  const parser = new Parser({
    onopentag(name, attributes) {
      if (done) return
      if (name === "body") {
        done = true
        return
      }
      if (name !== "meta") return
      const property = (attributes.property ?? attributes.name ?? "").trim().toLowerCase()
      const content = attributes.content
      if (!property.startsWith("og:") || content === undefined) return
      // Structured image properties (og:image:width...) describe the og:image before them.
      const image = images[images.length - 1]
      switch (property) {
        case "og:image":
        case "og:image:url":
          if (image !== undefined && image.url === undefined) image.url = content
          else images.push({ url: content })
          break
        case "og:image:secure_url":
          if (image === undefined) images.push({ secure_url: content })
          else image.secure_url = content
          break
        case "og:image:type":
          if (image !== undefined) image.type = content.trim()
          break
        case "og:image:width":
          if (image !== undefined) image.width = dimension(content)
          break
        case "og:image:height":
          if (image !== undefined) image.height = dimension(content)
          break
        default:
          if (!(property in fields)) fields[property] = content
      }
    },
    onclosetag(name) {
      if (name === "head") done = true
    }
  }, { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true })
  parser.end(html.slice(0, HEAD_LIMIT))

  const first = images.map((i) => ({ ...i, url: i.url === undefined ? undefined : absolute(i.url, pageUrl), secure_url: i.secure_url === undefined ? undefined : absolute(i.secure_url, pageUrl) }))
    .find((i) => i.url !== undefined || i.secure_url !== undefined)
  const image: OpenGraphImage | undefined = first === undefined ? undefined : {
    url: first.url ?? "",
    ...(first.secure_url === undefined ? {} : { secure_url: first.secure_url }),
    ...(first.type === undefined || first.type === "" ? {} : { type: first.type }),
    ...(first.width === undefined ? {} : { width: first.width }),
    ...(first.height === undefined ? {} : { height: first.height })
  }
  const title = truncate(fields["og:title"] ?? "")
  const description = truncate(fields["og:description"] ?? "")
  if (title === "" && description === "" && image === undefined) return undefined
  return {
    type: (fields["og:type"] ?? "").trim(),
    url: absolute(fields["og:url"] ?? "", pageUrl) ?? pageUrl,
    title,
    description,
    site_name: truncate(fields["og:site_name"] ?? ""),
    images: image === undefined ? [] : [image]
  }
}
