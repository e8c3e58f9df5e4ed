import type { ComponentChildren } from "preact"
import type { ServerChannel as Channel } from "@mattermost/types/channels"
import type { Team } from "@mattermost/types/teams"
import type { UserProfile } from "@mattermost/types/users"
import { useEffect, useRef, useState } from "preact/hooks"
import { client } from "../app/api.ts"
import { navigate } from "../app/router.ts"
import { currentChannelId, me, put } from "../app/state.ts"
import { otherUserId } from "../channels/actions.ts"
import { channelLabel, channelPath, channels, members, refreshChannels, unread } from "../channels/state.ts"
import { displayName, users } from "../people/state.ts"
import { Icon } from "../ui/Icon.tsx"
import { Modal } from "../ui/Modal.tsx"
import { closeModal } from "./modal.ts"
import { fuzzyScore, recentChannels } from "./recent.ts"

interface Choice {
  readonly key: string
  readonly label: string
  readonly detail: string
  readonly glyph: ComponentChildren
  readonly unread: boolean
  readonly mentions: number
  readonly open: () => Promise<void> | void
}

/**
 * Ctrl/Cmd+K: find a channel or a person by typing a few letters of their name (fuzzy), recent channels first, unread
 * ones marked; Up/Down choose, Enter opens (a person opens your direct message with them), Escape closes.
 */
export default function Switcher({ team }: { team: Team }) {
  const [term, setTerm] = useState("")
  const [active, setActive] = useState(0)
  const [people, setPeople] = useState<Array<UserProfile>>([])
  const [others, setOthers] = useState<Array<Channel>>([])
  const list = useRef<HTMLUListElement>(null)
  useEffect(() => {
    // The team's public channels you have not joined are found too (opening one joins it).
    client.getChannels(team.id, 0, 200).then((all) => setOthers(all as Array<Channel>), () => undefined)
  }, [team.id])
  useEffect(() => {
    if (term.trim() === "") return setPeople([])
    let stale = false
    const t = setTimeout(() => client.autocompleteUsers(term.trim(), team.id, "", { limit: 10 }).then((r) => {
      if (stale) return
      put(users, r.users)
      setPeople(r.users)
    }, () => undefined), 120)
    return () => { stale = true; clearTimeout(t) }
  }, [term])

  const go = (path: string) => { closeModal(); navigate(path) }
  const recent = recentChannels()
  const rank = (id: string) => { const i = recent.indexOf(id); return i < 0 ? recent.length : i }
  const mine = Object.values(channels.value).filter((c) => members.value[c.id] && c.delete_at === 0 && (c.team_id === team.id || c.team_id === ""))
  const dmWith = new Set(mine.filter((c) => c.type === "D").map(otherUserId))
  const channelChoice = (c: Channel, joined: boolean): Choice => {
    const u = joined ? unread(c.id) : { unread: false, mentions: 0 }
    return {
      key: c.id, label: channelLabel(c), detail: c.type === "D" ? "Direct message" : c.type === "G" ? "Group message" : joined ? "" : "Not joined",
      glyph: c.type === "O" ? "#" : c.type === "P" ? <Icon name="lock" /> : "@", unread: u.unread, mentions: u.mentions,
      open: joined ? () => go(channelPath(team.name, c)) : async () => {
        await client.addToChannel(me.value!.id, c.id)
        await refreshChannels()
        go(channelPath(team.name, c))
      }
    }
  }
  const typed = term.trim()
  let choices: Array<Choice>
  if (typed === "") {
    choices = mine.filter((c) => c.id !== currentChannelId.value)
      .sort((a, b) => rank(a.id) - rank(b.id) || Number(unread(b.id).unread) - Number(unread(a.id).unread) || channelLabel(a).localeCompare(channelLabel(b)))
      .slice(0, 12).map((c) => channelChoice(c, true))
  } else {
    const scored: Array<[number, Choice]> = []
    for (const c of mine) {
      const s = fuzzyScore(`${channelLabel(c)} ${c.name}`, typed)
      if (s >= 0) scored.push([s + (rank(c.id) < recent.length ? 30 - rank(c.id) : 0), channelChoice(c, true)])
    }
    for (const c of others) {
      if (members.value[c.id]) continue
      const s = fuzzyScore(`${c.display_name} ${c.name}`, typed)
      if (s >= 0) scored.push([s - 50, channelChoice(c, false)])
    }
    for (const u of people) {
      if (u.id === me.value?.id || dmWith.has(u.id)) continue
      scored.push([fuzzyScore(`${u.username} ${u.first_name} ${u.last_name} ${u.nickname}`, typed) - 20, {
        key: u.id, label: displayName(u), detail: displayName(u) !== u.username ? `@${u.username}` : [u.first_name, u.last_name].filter(Boolean).join(" ") || "Person", glyph: "@", unread: false, mentions: 0,
        open: () => go(`/${team.name}/messages/@${u.username}`)
      }])
    }
    choices = scored.sort((a, b) => b[0] - a[0]).slice(0, 15).map(([, c]) => c)
  }
  const at = Math.min(active, Math.max(0, choices.length - 1))
  useEffect(() => {
    list.current?.querySelector("[aria-selected=true]")?.scrollIntoView({ block: "nearest" })
  }, [at, term])
  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === "ArrowDown") { e.preventDefault(); setActive((at + 1) % Math.max(1, choices.length)) }
    else if (e.key === "ArrowUp") { e.preventDefault(); setActive((at - 1 + choices.length) % Math.max(1, choices.length)) }
    else if (e.key === "Enter" && choices[at]) { e.preventDefault(); void choices[at].open() }
  }
  return (
    <Modal title="Switch channels" class="switcher">
      <div class="dialog-body">
        <input type="text" role="combobox" aria-expanded="true" aria-controls="switcher-list" aria-autocomplete="list" autoFocus
          aria-activedescendant={choices[at] ? `switch-${choices[at].key}` : undefined} aria-label="Find a channel or person"
          placeholder="Type a channel or person's name" value={term}
          onInput={(e) => { setTerm(e.currentTarget.value); setActive(0) }} onKeyDown={onKeyDown} />
        <p class="muted small">{typed ? "" : "Recent channels"}</p>
        <ul id="switcher-list" ref={list} role="listbox" aria-label="Channels and people" class="switch-list">
          {choices.map((c, i) => (
            <li key={c.key} id={`switch-${c.key}`} role="option" aria-selected={i === at}
              aria-label={`${c.label}${c.detail ? `, ${c.detail}` : ""}${c.mentions ? `, ${c.mentions} mention${c.mentions > 1 ? "s" : ""}` : c.unread ? ", unread" : ""}`}
              class={c.unread ? "unread" : undefined} onMouseMove={() => i !== at && setActive(i)} onClick={() => void c.open()}>
              <span class="glyph" aria-hidden="true">{c.glyph}</span>
              <span class="label">{c.label}</span>
              {c.detail && <span class="muted small">{c.detail}</span>}
              {c.mentions > 0 ? <span class="badge" aria-hidden="true" data-count={c.mentions} /> : c.unread ? <span class="dot" aria-hidden="true" /> : null}
            </li>
          ))}
          {choices.length === 0 && <li class="muted" role="option" aria-selected="false" aria-disabled="true">Nothing found</li>}
        </ul>
        <p class="muted small">↑ ↓ to choose · Enter to open · Esc to close</p>
      </div>
    </Modal>
  )
}
