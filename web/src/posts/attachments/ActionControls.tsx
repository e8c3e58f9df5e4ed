import type { Post } from "@mattermost/types/posts"
import type { PostAction } from "@mattermost/types/integration_actions"
import { useState } from "preact/hooks"
import { client, errorMessage } from "../../app/api.ts"
import { navigate } from "../../app/router.ts"
import { currentTeamId } from "../../app/state.ts"
import { channels } from "../../channels/state.ts"
import { users } from "../../people/state.ts"

/**
 * An attachment's interactive buttons and menus, as Mattermost's: a click (or a choice) is
 * POST /api/v4/posts/{post_id}/actions/{action_id} (with the action's cookie when the post is ephemeral and not
 * stored); the server calls the integration, whose answer arrives as post_edited (an update) or ephemeral_message
 * (text for this user alone). A goto_location answer is followed: in the app when it is ours, in a new tab otherwise.
 */

const STYLES = new Set(["default", "primary", "success", "good", "warning", "danger"])

/** Buttons take Mattermost's named styles; a hex colour tints the text and border. */
const buttonLook = (style: string | undefined) => {
  if (style !== undefined && STYLES.has(style)) return { cls: `action-button ${style === "good" ? "success" : style}`, color: undefined }
  return { cls: "action-button default", color: style !== undefined && /^#[0-9a-f]{3,8}$/i.test(style) ? style : undefined }
}

const follow = (to: string) => {
  if (to === "") return
  try {
    const url = new URL(to, location.origin)
    if (url.origin === location.origin) navigate(url.pathname + url.search)
    else if (url.protocol === "https:" || url.protocol === "http:") window.open(url.toString(), "_blank", "noopener,noreferrer")
  } catch {
    // Not a URL: nothing to follow.
  }
}

/** A select's options: its own, or the people or channels the client knows (Mattermost's data sources). */
const optionsOf = (action: PostAction) => {
  if (action.data_source === "users") {
    return Object.values(users.value).filter((u) => u.delete_at === 0).map((u) => ({ text: u.username, value: u.id }))
      .sort((a, b) => a.text.localeCompare(b.text))
  }
  if (action.data_source === "channels") {
    return Object.values(channels.value).filter((c) => (c.type === "O" || c.type === "P") && c.team_id === currentTeamId.value && c.delete_at === 0)
      .map((c) => ({ text: c.display_name, value: c.id })).sort((a, b) => a.text.localeCompare(b.text))
  }
  return action.options ?? []
}

export const ActionControls = ({ post, actions }: { post: Post; actions: ReadonlyArray<PostAction> }) => {
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState("")
  const run = async (action: PostAction, selected?: string) => {
    if (!action.id) return
    setBusy(true)
    setError("")
    try {
      const answer = await client.doPostActionWithCookie(post.id, action.id, action.cookie ?? "", selected) as { goto_location?: string }
      follow(answer.goto_location ?? "")
    } catch (e) {
      setError(`${action.name}: ${errorMessage(e, "the action failed")}`)
    } finally {
      setBusy(false)
    }
  }
  return (
    <div class="attachment-actions">
      {actions.map((action, i) => {
        if (action.type === "select") {
          const options = optionsOf(action)
          return (
            <select key={action.id ?? i} aria-label={action.name} disabled={busy || action.disabled} title={action.tooltip}
              value={action.default_option ?? ""} onChange={(e) => { const v = e.currentTarget.value; if (v !== "") void run(action, v) }}>
              <option value="">{action.name}</option>
              {options.map((o) => <option key={o.value} value={o.value}>{o.text}</option>)}
            </select>
          )
        }
        const look = buttonLook(action.style)
        return (
          <button key={action.id ?? i} type="button" class={look.cls} style={look.color ? { color: look.color, borderColor: look.color } : undefined}
            disabled={busy || action.disabled} title={action.tooltip} onClick={() => void run(action)}>
            {action.name}
          </button>
        )
      })}
      {error && <p class="alert action-error" role="alert">{error}</p>}
    </div>
  )
}
