import type { Post } from "@mattermost/types/posts"
import { useLayoutEffect, useRef, useState } from "preact/hooks"
import { Floating } from "../ui/Floating.tsx"
import { MenuButton } from "../ui/Menu.tsx"
import { client, errorMessage } from "../app/api.ts"
import { navigate } from "../app/router.ts"
import { currentTeamId, me, teams } from "../app/state.ts"
import { Avatar } from "../people/Avatar.tsx"
import { displayName, users } from "../people/state.ts"
import { openThread, showProfile } from "../shell/panels.ts"
import { Confirm } from "../ui/Confirm.tsx"
import { useFocus } from "../ui/focus.ts"
import { EmojiGlyph } from "../emoji/Glyph.tsx"
import { FileAttachments } from "../files/FileAttachments.tsx"
import { EmojiPicker } from "./EmojiPicker.tsx"
import { renderMarkdown } from "./markdown.ts"
import { markMatches } from "./searchMarks.ts"
import { highlightMentions } from "../notifications/mentions.ts"
import { Attachments } from "./attachments/Attachments.tsx"
import { dismissPost, IconAvatar, shownAuthor, SystemAvatar } from "./authors/postAuthor.tsx"
import { LinkPreview } from "./embeds/LinkPreview.tsx"
import { highlighted } from "./code/highlight.ts"
import { permalink } from "./Permalink.tsx"
import { addPosts, flagged, formatTime, posts } from "./state.ts"

const time = formatTime

/** A click on an @mention opens that person's profile; on a ~channel, opens the channel (joining it if public). */
export const openLink = (event: MouseEvent) => {
  const a = (event.target as Element).closest?.("a.mention, a.channel-link") as HTMLElement | null
  if (!a) return
  event.preventDefault()
  const name = a.dataset.name ?? ""
  if (a.classList.contains("channel-link")) {
    const team = teams.value.find((t) => t.id === currentTeamId.value) ?? teams.value[0]
    if (team) navigate(`/${team.name}/channels/${name}`)
    return
  }
  const known = Object.values(users.value).find((u) => u.username === name)
  const show = (id: string) => showProfile(id, a)
  if (known) show(known.id)
  else client.getUserByUsername(name).then((u) => { users.value = { ...users.value, [u.id]: u }; show(u.id) }, () => undefined)
}

const Reactions = ({ post }: { post: Post }) => {
  const list = post.metadata?.reactions ?? []
  if (list.length === 0) return null
  const byName = new Map<string, Array<string>>()
  for (const r of list) byName.set(r.emoji_name, [...(byName.get(r.emoji_name) ?? []), r.user_id])
  const myId = me.value?.id ?? ""
  return (
    <div class="reactions">
      {[...byName].map(([name, who]) => {
        const mine = who.includes(myId)
        const label = `${name} reaction by ${who.map((id) => displayName(users.value[id] ?? (id === myId ? me.value ?? undefined : undefined))).join(", ")}`
        return (
          <button key={name} type="button" class={mine ? "reaction mine" : "reaction"} aria-pressed={mine} aria-label={`${label}, ${who.length}`} title={label}
            onClick={() => (mine ? client.removeReaction(myId, post.id, name) : client.addReaction(myId, post.id, name)).catch(() => undefined)}>
            <EmojiGlyph name={name} /> {who.length}
          </button>
        )
      })}
    </div>
  )
}

export const PostItem = ({ id, compact, inThread, editing, setEditing, marks }: {
  id: string
  /** A search's words, marked in the message (search results). */
  marks?: RegExp | null
  compact: boolean
  inThread?: boolean
  editing: boolean
  setEditing: (id: string | null) => void
}) => {
  const post = posts.value[id]
  const [picker, setPicker] = useState(false)
  const [menu, setMenu] = useState(false)
  const reactButton = useRef<HTMLButtonElement>(null)
  const [confirming, setConfirming] = useState(false)
  // The action bar exists only while the post is hovered or holds focus: a channel of 60 posts paints faster without
  // 60 hidden toolbars, and keyboard users reach it by focusing the post (Tab), as in Mattermost.
  const [hovered, setHovered] = useState(false)
  const [focused, setFocused] = useState(false)
  if (!post) return null
  const author = users.value[post.user_id]
  const who = shownAuthor(post, author)
  const name = who.name
  // A system message carries its actor's user_id but is the server's, not theirs: not editable or deletable as theirs.
  const mine = post.user_id === me.value?.id && !who.system
  const deleted = post.delete_at > 0 || post.state === "DELETED"
  const saved = flagged.value.has(post.id)
  const replies = post.reply_count ?? 0
  // Mentions of the reader are marked in the text and the post (notifications/mentions.ts), as Mattermost does.
  const shown = deleted ? { html: "", mentioned: false } : highlightMentions(renderMarkdown(post.message), post.message, post.channel_id, post.user_id)

  const save = async (text: string) => {
    try {
      addPosts([await client.patchPost({ id: post.id, message: text } as any)])
      setEditing(null)
    } catch (e) {
      alert(errorMessage(e))
    }
  }
  const toggleSave = async () => {
    const pref = { user_id: me.value!.id, category: "flagged_post", name: post.id, value: "true" }
    if (saved) await client.deletePreferences(me.value!.id, [pref])
    else await client.savePreferences(me.value!.id, [pref])
    const next = new Set(flagged.value)
    if (saved) next.delete(post.id)
    else next.add(post.id)
    flagged.value = next
  }
  const closePicker = () => setPicker(false)
  const togglePin = async () => {
    if (post.is_pinned) await client.unpinPost(post.id)
    else await client.pinPost(post.id)
    addPosts([{ ...post, is_pinned: !post.is_pinned }])
  }

  return (
    <article class={`post${compact ? " compact" : ""}${post.root_id && !inThread ? " reply" : ""}${shown.mentioned ? " mentioned" : ""}${who.system ? " system" : ""}${who.ephemeral ? " ephemeral" : ""}`} aria-label={`${name} at ${time(post.create_at)}`} data-post-id={post.id}
      tabIndex={0} onMouseEnter={() => setHovered(true)} onMouseLeave={() => setHovered(false)}
      onFocusIn={() => setFocused(true)}
      onFocusOut={(e) => { if (!e.currentTarget.contains(e.relatedTarget as Node | null)) setFocused(false) }}>
      {compact ? <span class="gutter" aria-hidden="true">{time(post.create_at)}</span>
        : who.system ? <SystemAvatar /> : who.icon ? <IconAvatar src={who.icon} /> : <Avatar userId={post.user_id} />}
      <div class="body">
        {shown.mentioned && <span class="sr-only">Mentions you</span>}
        {!compact && (
          <header>
            {who.system ? <span class="author">{name}</span>
              : <button type="button" class="author" onClick={(e) => showProfile(post.user_id, e.currentTarget as HTMLElement)}>{name}</button>}
            {who.bot && <span class="tag bot-tag">BOT</span>}
            <time dateTime={new Date(post.create_at).toISOString()}>{time(post.create_at)}</time>
            {post.is_pinned && <span class="tag">Pinned</span>}
            {saved && <span class="tag">Saved</span>}
            {who.ephemeral && <span class="muted only-you">(Only visible to you)</span>}
            {who.ephemeral && <button type="button" class="link dismiss" onClick={() => dismissPost(post)}>Dismiss</button>}
          </header>
        )}
        {post.root_id && !inThread && !who.ephemeral && posts.value[post.root_id] && (
          <button type="button" class="link replies" onClick={() => openThread(post.root_id)}>
            Commented on {displayName(users.value[posts.value[post.root_id].user_id])}'s message
          </button>
        )}
        {deleted ? (
          <p class="muted deleted">(message deleted)</p>
        ) : editing ? (
          <EditBox initial={post.message} onSave={save} onCancel={() => setEditing(null)} />
        ) : (
          <div class="message" onClick={openLink} dangerouslySetInnerHTML={{ __html: marks ? markMatches(highlighted(shown.html), marks) : highlighted(shown.html) }} />
        )}
        {confirming && !deleted && (
          <Confirm id={post.id} title="Delete message" text="Delete this message? This cannot be undone." action="Delete"
            onConfirm={() => { setConfirming(false); void client.deletePost(post.id).catch(() => undefined) }} onCancel={() => setConfirming(false)} />
        )}
        {!deleted && post.edit_at > 0 && !editing && <span class="muted edited">(edited)</span>}
        {!deleted && !editing && <Attachments post={post} />}
        {!deleted && !editing && <LinkPreview post={post} mine={mine} />}
        {!deleted && <FileAttachments post={post} />}
        {!deleted && <Reactions post={post} />}
        {!inThread && !post.root_id && replies > 0 && (
          <button type="button" class="link replies" onClick={() => openThread(post.id)}>{replies === 1 ? "1 reply" : `${replies} replies`}</button>
        )}
      </div>
      {!deleted && !who.ephemeral && !who.system && (hovered || focused || menu || picker) && (
        // The menu and the emoji picker open in the page's top layer (ui/Floating.tsx): never cut off by the list.
        <div class="actions" role="group" aria-label="Message actions">
          <button type="button" ref={reactButton} aria-label="Add reaction" title="Add reaction" aria-expanded={picker} onClick={() => setPicker(!picker)}>☺</button>
          {!inThread && <button type="button" aria-label="Reply" title="Reply" onClick={() => openThread(post.root_id || post.id)}>↩</button>}
          <MenuButton label="More actions" title="More actions" buttonClass="" placement="bottom-end" onToggle={setMenu} items={() => [
            { label: post.is_pinned ? "Unpin" : "Pin to channel", onSelect: () => void togglePin() },
            { label: saved ? "Remove from saved" : "Save", onSelect: () => void toggleSave() },
            { label: "Copy link", onSelect: () => void navigator.clipboard?.writeText(permalink(teams.value.find((t) => t.id === currentTeamId.value)?.name ?? "", post.id)).catch(() => undefined) },
            mine && { label: "Edit", onSelect: () => setEditing(post.id) },
            mine && { label: "Delete", danger: true, onSelect: () => setConfirming(true) }
          ]}>⋯</MenuButton>
          {picker && (
            <Floating anchor={reactButton.current} placement="bottom-end" onClose={closePicker}>
              <EmojiPicker onPick={(n) => { setPicker(false); reactButton.current?.focus(); void client.addReaction(me.value!.id, post.id, n).catch(() => undefined) }} onClose={closePicker} />
            </Floating>
          )}
        </div>
      )}
    </article>
  )
}

const EditBox = ({ initial, onSave, onCancel }: { initial: string; onSave: (t: string) => void; onCancel: () => void }) => {
  const [text, setText] = useState(initial)
  const area = useFocus<HTMLTextAreaElement>()
  // The caret goes to the end of the text, where a correction usually is.
  useLayoutEffect(() => {
    const el = area.current
    if (el) el.selectionStart = el.selectionEnd = el.value.length
  }, [])
  return (
    <form class="edit" onSubmit={(e) => { e.preventDefault(); onSave(text) }}>
      <textarea aria-label="Edit message" value={text} ref={area} onInput={(e) => setText(e.currentTarget.value)}
        onKeyDown={(e) => {
          if (e.key === "Escape") onCancel()
          if (e.key === "Enter" && !e.shiftKey) { e.preventDefault(); onSave(text) }
        }} />
      <div class="row"><button type="submit">Save</button><button type="button" class="secondary" onClick={onCancel}>Cancel</button></div>
    </form>
  )
}
