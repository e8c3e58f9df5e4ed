import type { Post } from "@mattermost/types/posts"
import type { UserProfile } from "@mattermost/types/users"
import { batch } from "@preact/signals"
import { config } from "../../app/state.ts"
import { displayName } from "../../people/state.ts"
import { imageUrl } from "../embeds/imageUrl.ts"
import { posts, timelines } from "../state.ts"
import "./authors.css"

/**
 * Who a post shows as, by Mattermost's rules: system messages (type system_*) as "System"; an incoming webhook's or
 * a bot's post under its override_username and override_icon_url when the server allows overrides
 * (EnablePostUsernameOverride, EnablePostIconOverride); a BOT tag on posts by bot accounts and from webhooks.
 */
export interface ShownAuthor {
  readonly name: string
  /** A picture other than the account's own (a webhook's override icon), through the image proxy. */
  readonly icon: string | undefined
  readonly bot: boolean
  readonly system: boolean
  readonly ephemeral: boolean
}

export const isSystemPost = (post: Post) => post.type.startsWith("system_")
export const isEphemeralPost = (post: Post) => post.type === "system_ephemeral"

const prop = (post: Post, key: string) => {
  const value = (post.props as Record<string, unknown> | undefined)?.[key]
  return typeof value === "string" ? value : undefined
}

export const fromWebhook = (post: Post) => prop(post, "from_webhook") === "true"

export const shownAuthor = (post: Post, user: UserProfile | undefined): ShownAuthor => {
  const ephemeral = isEphemeralPost(post)
  const integration = fromWebhook(post) || prop(post, "from_bot") === "true"
  const name = integration && config.value.EnablePostUsernameOverride === "true" ? prop(post, "override_username") : undefined
  const icon = integration && config.value.EnablePostIconOverride === "true" && prop(post, "use_user_icon") !== "true"
    ? imageUrl(prop(post, "override_icon_url"))
    : undefined
  // An integration's ephemeral answer (an action's ephemeral_text) keeps its webhook marks: it shows as the integration.
  if (isSystemPost(post) && !(ephemeral && integration)) return { name: "System", icon: undefined, bot: false, system: true, ephemeral }
  return {
    name: name || (user ? displayName(user) : "…"),
    icon,
    bot: fromWebhook(post) || user?.is_bot === true,
    system: false,
    ephemeral
  }
}

/** An ephemeral post is never stored: dismissing it removes it from this page only (Mattermost's "Delete" of one). */
export const dismissPost = (post: Post) =>
  batch(() => {
    const line = timelines.value[post.channel_id]
    if (line) timelines.value = { ...timelines.value, [post.channel_id]: { ...line, order: line.order.filter((id) => id !== post.id) } }
    const { [post.id]: _gone, ...rest } = posts.value
    posts.value = rest
  })

/** The round picture beside a post: the account's (with its status), a webhook's override, or the system's mark. */
export const SystemAvatar = () => (
  <span class="avatar system-avatar" aria-hidden="true">
    <svg viewBox="0 0 24 24" width="20" height="20" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round">
      <circle cx="12" cy="12" r="9" /><path d="M12 8v.01M12 11v5" />
    </svg>
  </span>
)

export const IconAvatar = ({ src }: { src: string }) => (
  <span class="avatar" style={{ width: "32px", height: "32px" }}>
    <img src={src} alt="" width={32} height={32} loading="lazy" />
  </span>
)
