import { useEffect, useRef, useState } from "preact/hooks"
import type { Post } from "@mattermost/types/posts"
import { client, errorMessage, socket, uploadFile } from "../app/api.ts"
import { navigate } from "../app/router.ts"
import { currentTeamId, me } from "../app/state.ts"
import { channels } from "../channels/state.ts"
import { displayName, mentionDetail, users } from "../people/state.ts"
import { Icon } from "../ui/Icon.tsx"
import { searchEmoji, EMOJI } from "./emoji.ts"
import { suggestEmoji } from "../emoji/suggest.ts"
import { postCreated, posts, timelines } from "./state.ts"

/** Drafts survive channel switches and reloads (per channel and thread, in localStorage). */
const draftKey = (channelId: string, rootId: string) => `draft:${me.value?.id}:${channelId}:${rootId}`

interface Upload {
  readonly key: string
  readonly name: string
  progress: number
  id?: string
  error?: string
}

interface Suggestion {
  readonly label: string
  readonly insert: string
  /** A slash command's hint and description, shown after its name. */
  readonly hint?: string
  /** Replaces everything before the caret (a slash command) instead of the word being typed. */
  readonly whole?: boolean
}

/** The message box: Enter sends, Shift+Enter breaks the line, Up edits your last message, @ ~ : autocomplete. */
export const Composer = ({ channelId, rootId = "", label, onEditLast, onReplyLast, id }: {
  channelId: string
  /** Shift+Up in the empty box: reply to the channel's last message (Mattermost's shortcut). */
  onReplyLast?: () => void
  /** The channel's message box has the id the skip link and focus handling look for. */
  id?: string
  rootId?: string
  label: string
  onEditLast?: (id: string) => void
}) => {
  const [text, setText] = useState(() => localStorage.getItem(draftKey(channelId, rootId)) ?? "")
  const [uploads, setUploads] = useState<Array<Upload>>([])
  const [error, setError] = useState("")
  const [suggestions, setSuggestions] = useState<Array<Suggestion>>([])
  const [active, setActive] = useState(0)
  const area = useRef<HTMLTextAreaElement>(null)
  const lastTyping = useRef(0)
  const file = useRef<HTMLInputElement>(null)
  const pending = useRef(new Map<string, Promise<string | undefined>>())

  // Switching to another channel or thread shows that one's draft. Not on mount: the first state already holds it, and
  // effects run a frame after the box is shown, so resetting here would wipe what a quick typist (or a test on a loaded
  // machine) typed in between, and Enter would then send nothing.
  const shownFor = useRef(`${channelId}:${rootId}`)
  useEffect(() => {
    if (shownFor.current === `${channelId}:${rootId}`) return
    shownFor.current = `${channelId}:${rootId}`
    setText(localStorage.getItem(draftKey(channelId, rootId)) ?? "")
    setUploads([])
    setError("")
  }, [channelId, rootId])

  useEffect(() => {
    const key = draftKey(channelId, rootId)
    if (text) localStorage.setItem(key, text)
    else localStorage.removeItem(key)
  }, [text, channelId, rootId])

  // Each keystroke asks anew; an answer that comes back after a newer keystroke is dropped, so a slow "~des" lookup
  // cannot replace the suggestions of what was typed since (":tad").
  const asked = useRef(0)
  const suggest = async (value: string, caret: number) => {
    const ask = ++asked.current
    const before = value.slice(0, caret)
    // "/" at the start: the commands the server offers for what is typed, with their hints (Mattermost's
    // autocomplete_suggestions), until a space ends the command's name.
    if (/^\/[^\s]*$/.test(before)) {
      const teamId = channels.value[channelId]?.team_id || currentTeamId.value
      const found = teamId ? await client.getCommandAutocompleteSuggestionsList(before, teamId, { channel_id: channelId, team_id: teamId, root_id: rootId } as never).catch(() => []) : []
      if (ask !== asked.current) return
      setSuggestions(found.slice(0, 12).map((c) => ({ label: `/${c.Suggestion}`, hint: [c.Hint, c.Description].filter(Boolean).join(" — "), insert: `/${c.Complete} `, whole: true })))
      return setActive(0)
    }
    const m = /(^|\s)([@~:])([\w.-]*)$/.exec(before)
    if (!m || (m[2] === ":" && m[3].length < 2)) return setSuggestions([])
    const [, , sigil, term] = m
    if (sigil === ":") {
      const found = await suggestEmoji(term, 8).catch(() => searchEmoji(term, 8).map((name) => ({ name, char: EMOJI[name] })))
      if (ask !== asked.current) return
      setSuggestions(found.map((e) => ({ label: `${"char" in e && e.char ? `${e.char} ` : ""}:${e.name}:`, insert: `:${e.name}: ` })))
    } else if (sigil === "@") {
      const channel = channels.value[channelId]
      const found = await client.autocompleteUsers(term, channel?.team_id ?? "", channelId).catch(() => null)
      if (ask !== asked.current) return
      const list = [...(found?.users ?? []), ...(found?.out_of_channel ?? [])].slice(0, 8)
      setSuggestions(list.map((u) => ({ label: `@${u.username}${mentionDetail(u)}`, insert: `@${u.username} ` })))
    } else {
      const channel = channels.value[channelId]
      const found = channel?.team_id ? await client.autocompleteChannels(channel.team_id, term).catch(() => []) : []
      if (ask !== asked.current) return
      setSuggestions(found.slice(0, 8).map((c) => ({ label: `~${c.name} ${c.display_name}`, insert: `~${c.name} ` })))
    }
    setActive(0)
  }

  const apply = (s: Suggestion) => {
    const el = area.current!
    const caret = el.selectionStart
    const before = s.whole ? "" : text.slice(0, caret).replace(/([@~:])([\w.-]*)$/, "")
    const next = before + s.insert + text.slice(caret)
    // The text and the caret are set on the element now, not after the next frame: a person typing on straight after
    // choosing (":tad" after "~design") must not have the caret moved back under the characters already typed. The
    // render that follows finds the same value and leaves the element as it is.
    el.value = next
    el.focus()
    el.selectionStart = el.selectionEnd = before.length + s.insert.length
    setText(next)
    asked.current++ // a lookup still under way must not reopen the list
    setSuggestions([])
  }

  const attach = (files: FileList | Array<File>) => {
    for (const f of Array.from(files)) {
      const key = `${f.name}-${Math.random()}`
      setUploads((list) => [...list, { key, name: f.name, progress: 0 }])
      const update = (patch: Partial<Upload>) => setUploads((list) => list.map((u) => (u.key === key ? { ...u, ...patch } : u)))
      pending.current.set(key, uploadFile(channelId, f, (p) => update({ progress: p }))
        .then((r) => {
          update({ progress: 1, id: r.file_infos[0]?.id })
          return r.file_infos[0]?.id
        })
        .catch((e) => {
          update({ error: errorMessage(e) })
          return undefined
        }))
    }
  }

  const send = async () => {
    const message = text.trim()
    // Sending while files are still uploading waits for them (the message goes out with every finished file).
    const keys = uploads.map((u) => u.key)
    const fileIds = (await Promise.all(keys.map((k) => pending.current.get(k)))).filter((id): id is string => !!id)
    if (!message && fileIds.length === 0) return
    setError("")
    try {
      // As the Mattermost apps: a message starting with "/" is a slash command, run by the server (built-in or a
      // team's custom command); what it answers comes as a post or, for the user alone, an ephemeral_message event.
      if (message.startsWith("/") && fileIds.length === 0) {
        const teamId = channels.value[channelId]?.team_id || currentTeamId.value
        const answer = await client.executeCommand(message, { channel_id: channelId, team_id: teamId, root_id: rootId } as never)
        const goto = (answer as { goto_location?: string }).goto_location ?? ""
        if (goto.startsWith("/")) navigate(goto)
        else if (/^https?:\/\//.test(goto)) window.open(goto, "_blank", "noopener")
      } else {
        const post = await client.createPost({ channel_id: channelId, root_id: rootId, message, file_ids: fileIds } as Post)
        postCreated(post)
      }
      setText("")
      // A lookup still under way for what was just sent must not open a list over the empty box.
      asked.current++
      setSuggestions([])
      setUploads([])
      pending.current.clear()
      // Sent with the Send button: typing goes on in the box.
      area.current?.focus()
    } catch (e) {
      setError(errorMessage(e, "The message could not be sent"))
    }
  }

  const onKeyDown = (e: KeyboardEvent) => {
    if (suggestions.length > 0) {
      if (e.key === "ArrowDown") { e.preventDefault(); return setActive((active + 1) % suggestions.length) }
      if (e.key === "ArrowUp") { e.preventDefault(); return setActive((active - 1 + suggestions.length) % suggestions.length) }
      // A command typed out in full is run by Enter, not completed again (Tab still completes it).
      const typedInFull = e.key === "Enter" && suggestions[active].whole && text.trim() === suggestions[active].insert.trim()
      if (typedInFull) { asked.current++; setSuggestions([]) }
      else if (e.key === "Enter" || e.key === "Tab") { e.preventDefault(); return apply(suggestions[active]) }
      if (e.key === "Escape") { asked.current++; return setSuggestions([]) }
    }
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
      e.preventDefault()
      void send()
    } else if (e.key === "ArrowUp" && e.shiftKey && text === "" && onReplyLast) {
      e.preventDefault()
      onReplyLast()
    } else if (e.key === "ArrowUp" && !e.shiftKey && text === "" && onEditLast) {
      const order = timelines.value[channelId]?.order ?? []
      const last = [...order].reverse().find((id) => posts.value[id]?.user_id === me.value?.id && !posts.value[id]?.delete_at && !posts.value[id]?.type.startsWith("system_") && (!rootId || posts.value[id]?.root_id === rootId || id === rootId))
      if (last) { e.preventDefault(); onEditLast(last) }
    }
  }

  const onInput = (e: Event) => {
    const el = e.currentTarget as HTMLTextAreaElement
    setText(el.value)
    void suggest(el.value, el.selectionStart)
    const now = Date.now()
    if (now - lastTyping.current > 3000) {
      lastTyping.current = now
      socket.userTyping(channelId, rootId)
    }
  }

  return (
    <div class="composer" onDragOver={(e) => e.preventDefault()} onDrop={(e) => { e.preventDefault(); if (e.dataTransfer?.files.length) attach(e.dataTransfer.files) }}>
      {suggestions.length > 0 && (
        <ul class="suggestions" role="listbox" aria-label="Suggestions">
          {suggestions.map((s, i) => (
            <li key={s.insert} role="option" aria-selected={i === active} onMouseDown={(e) => { e.preventDefault(); apply(s) }}>
              {s.label}{s.hint && <span class="muted"> {s.hint}</span>}
            </li>
          ))}
        </ul>
      )}
      {uploads.length > 0 && (
        <ul class="uploads" aria-label="Attachments">
          {uploads.map((u) => (
            <li key={u.key}>
              {u.name}{" "}
              {u.error ? <span class="alert">{u.error}</span> : <progress max={1} value={u.progress} aria-label={`Uploading ${u.name}`} />}
              <button type="button" class="link" aria-label={`Remove ${u.name}`} onClick={() => setUploads((l) => l.filter((x) => x.key !== u.key))}>✕</button>
            </li>
          ))}
        </ul>
      )}
      {error && <p class="alert" role="alert">{error}</p>}
      <div class="row">
        <button type="button" class="icon" aria-label="Attach files" title="Attach files" onClick={() => file.current?.click()}><Icon name="paperclip" /></button>
        <input ref={file} type="file" multiple hidden aria-label="Files to attach" onChange={(e) => { const f = e.currentTarget.files; if (f) attach(f); e.currentTarget.value = "" }} />
        <textarea ref={area} id={id} rows={1} aria-label={label} placeholder={label} value={text} onInput={onInput} onKeyDown={onKeyDown}
          onPaste={(e) => { const f = e.clipboardData?.files; if (f && f.length) { e.preventDefault(); attach(f) } }} />
        <button type="button" aria-label="Send" onClick={() => void send()}>Send</button>
      </div>
    </div>
  )
}

export const typingText = (who: Array<string>) => {
  const names = who.map((id) => displayName(users.value[id], "Someone"))
  if (names.length === 0) return ""
  if (names.length === 1) return `${names[0]} is typing…`
  return `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]} are typing…`
}
