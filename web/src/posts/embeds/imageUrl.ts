/**
 * Pictures named by integrations and linked pages (attachment images and icons, preview images, webhook icons) are
 * somebody else's URLs: the client loads them through the server's image proxy (GET /api/v4/image, fetched through
 * the guarded outbound client), so a reader's address never reaches whoever posted the link, and the page's CSP can
 * keep images to its own origin. Same-origin paths (a bot's own picture) are used as they are.
 */
export const imageUrl = (url: string | undefined): string | undefined => {
  if (url === undefined || url === "") return undefined
  if (url.startsWith("/") && !url.startsWith("//")) return url
  if (!/^https?:\/\//i.test(url)) return undefined
  return `/api/v4/image?url=${encodeURIComponent(url)}`
}

/** Only http(s) links are followed: an integration's `javascript:` link must never be clickable. */
export const safeLink = (url: string | undefined): string | undefined =>
  url !== undefined && /^https?:\/\//i.test(url) ? url : undefined
