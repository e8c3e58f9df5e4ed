import type { MessageAttachment } from "@mattermost/types/message_attachments"
import type { Post } from "@mattermost/types/posts"
import { imageUrl, safeLink } from "../embeds/imageUrl.ts"
import { renderMarkdown } from "../markdown.ts"
import { openLink } from "../Post.tsx"
import { ActionControls } from "./ActionControls.tsx"
import { barColor } from "./colors.ts"
import "./attachments.css"

/**
 * Slack-style message attachments (post props.attachments, as integrations and incoming webhooks send them) drawn as
 * Mattermost draws them: pretext above a box with the colour bar; author (icon, name, link), title (link), text
 * (markdown), fields in two columns (short ones side by side), a thumbnail at the right, a full-width image, footer
 * (icon, text, time), and the interactive actions.
 */

const FOOTER_MAX = 300

type Attachment = MessageAttachment & { ts?: number | string }

const Markdown = ({ text, class: cls }: { text: string; class: string }) =>
  <div class={`message ${cls}`} onClick={openLink} dangerouslySetInnerHTML={{ __html: renderMarkdown(text) }} />

/** Slack's `ts` is seconds since the epoch, as a number or a string ("1700000000.000100"). */
const tsDate = (ts: Attachment["ts"]) => {
  const seconds = typeof ts === "string" ? Number.parseFloat(ts) : ts
  return typeof seconds === "number" && Number.isFinite(seconds) && seconds > 0 ? new Date(seconds * 1000) : undefined
}
const stamp = new Intl.DateTimeFormat([], { dateStyle: "medium", timeStyle: "short" })

const fieldText = (value: unknown) => (typeof value === "string" ? value : value === undefined || value === null ? "" : String(value))

const One = ({ post, attachment }: { post: Post; attachment: Attachment }) => {
  const a = attachment
  const color = barColor(a.color)
  const size = (url: string | undefined) => (url ? post.metadata?.images?.[url] : undefined)
  const image = imageUrl(a.image_url)
  const thumb = imageUrl(a.thumb_url)
  const authorIcon = imageUrl(a.author_icon)
  const footerIcon = imageUrl(a.footer_icon)
  const titleLink = safeLink(a.title_link)
  const authorLink = safeLink(a.author_link)
  const when = tsDate(a.ts)
  const fields = (a.fields ?? []).filter((f) => f && (f.title || fieldText(f.value)))
  const imageSize = size(a.image_url)
  return (
    <div class="attachment">
      {a.pretext && <Markdown class="attachment-pretext" text={a.pretext} />}
      <div class="attachment-box" style={color ? { borderLeftColor: color } : undefined}>
        <div class="attachment-main">
          <div class="attachment-content">
            {(a.author_name || authorIcon) && (
              <div class="attachment-author">
                {authorIcon && <img src={authorIcon} alt="" width={14} height={14} loading="lazy" />}
                {authorLink ? <a href={authorLink} target="_blank" rel="noopener noreferrer">{a.author_name || authorLink}</a> : <span>{a.author_name}</span>}
              </div>
            )}
            {a.title && (
              <h4 class="attachment-title">
                {titleLink ? <a href={titleLink} target="_blank" rel="noopener noreferrer">{a.title}</a> : a.title}
              </h4>
            )}
            {a.text && <Markdown class="attachment-text" text={a.text} />}
          </div>
          {thumb && <img class="attachment-thumb" src={thumb} alt="" width={75} height={75} loading="lazy" />}
        </div>
        {fields.length > 0 && (
          <dl class="attachment-fields">
            {fields.map((f, i) => (
              <div key={i} class={f.short ? "field short" : "field"}>
                {f.title && <dt>{f.title}</dt>}
                <dd><Markdown class="field-value" text={fieldText(f.value)} /></dd>
              </div>
            ))}
          </dl>
        )}
        {image && (
          <img class="attachment-image" src={image} alt={a.title ? `Image: ${a.title}` : "Attachment image"} loading="lazy"
            {...(imageSize ? { width: imageSize.width, height: imageSize.height } : {})} />
        )}
        {(a.footer || when) && (
          <div class="attachment-footer">
            {footerIcon && <img src={footerIcon} alt="" width={16} height={16} loading="lazy" />}
            {a.footer && <span>{a.footer.length > FOOTER_MAX ? `${a.footer.slice(0, FOOTER_MAX - 1)}…` : a.footer}</span>}
            {a.footer && when && <span aria-hidden="true"> | </span>}
            {when && <time dateTime={when.toISOString()}>{stamp.format(when)}</time>}
          </div>
        )}
        {a.actions && a.actions.length > 0 && <ActionControls post={post} actions={a.actions} />}
      </div>
    </div>
  )
}

export const Attachments = ({ post }: { post: Post }) => {
  const list = post.props?.attachments
  if (!Array.isArray(list) || list.length === 0) return null
  return (
    <div class="attachments">
      {(list as Array<Attachment>).filter((a) => a && typeof a === "object").map((a, i) => <One key={i} post={post} attachment={a} />)}
    </div>
  )
}
