import { useEffect, useMemo, useRef, useState } from "preact/hooks"
import { useFocus } from "../ui/focus.ts"
import { loadAllCustomEmoji, customEmoji } from "./custom.ts"
import { type Item, search, sections } from "./model.ts"
import { recentEmoji, recentNames, recordRecentEmoji, setSkinTone, skinTone } from "./prefs.ts"
import { TONES, charOf, tonedUnified } from "./tones.ts"

/**
 * The emoji picker: search by name and keyword, sections (recently used first, the system categories, the server's
 * custom emoji) with a bar to jump between them, the skin tone (saved as the person's preference) and the recently
 * used list kept in the preference Mattermost's apps read. Arrow keys move through the grid, Enter picks, Escape
 * closes. The module and the emoji set are loaded on first open (posts/EmojiPicker.tsx).
 */
const HAND = "270B" // ✋, shown in each tone on the tone buttons

const EmojiButton = ({ item, onPick, onShow }: { item: Item; onPick: (name: string) => void; onShow: (item: Item) => void }) => (
  <button type="button" class="emoji-cell" aria-label={item.name} title={`:${item.name}:`} onClick={() => onPick(item.name)}
    onFocus={() => onShow(item)} onMouseEnter={() => onShow(item)}>
    {item.src ? <img src={item.src} alt="" loading="lazy" /> : item.char}
  </button>
)

/** Arrow keys move between the grid's buttons by their place on screen (rows differ from section to section). */
const moveFocus = (grid: HTMLElement, key: string) => {
  const buttons = [...grid.querySelectorAll<HTMLButtonElement>("button.emoji-cell")]
  const at = buttons.indexOf(document.activeElement as HTMLButtonElement)
  if (at < 0) return false
  let next: HTMLButtonElement | undefined
  if (key === "ArrowRight") next = buttons[at + 1]
  else if (key === "ArrowLeft") next = buttons[at - 1]
  else {
    const here = buttons[at].getBoundingClientRect()
    const down = key === "ArrowDown"
    const row = (down ? buttons.slice(at + 1) : buttons.slice(0, at).reverse()).filter((b) => {
      const r = b.getBoundingClientRect()
      return down ? r.top > here.top + 2 : r.top < here.top - 2
    })
    const rowTop = row[0]?.getBoundingClientRect().top
    next = row.filter((b) => Math.abs(b.getBoundingClientRect().top - rowTop) < 2)
      .sort((a, b) => Math.abs(a.getBoundingClientRect().left - here.left) - Math.abs(b.getBoundingClientRect().left - here.left))[0]
  }
  if (!next) return false
  next.focus()
  next.scrollIntoView({ block: "nearest" })
  return true
}

export const Picker = ({ onPick, onClose }: { onPick: (name: string) => void; onClose: () => void }) => {
  const [term, setTerm] = useState("")
  const [shown, setShown] = useState<Item | null>(null)
  const [tones, setTones] = useState(false)
  const input = useFocus<HTMLInputElement>()
  const grid = useRef<HTMLDivElement>(null)
  const tone = skinTone.value
  const custom = customEmoji.value
  const recent = recentEmoji.value
  useEffect(() => void loadAllCustomEmoji(), [])

  const all = useMemo(() => sections(recentNames(recent), tone, custom), [recent, tone, custom])
  const results = useMemo(() => search(term, tone, custom), [term, tone, custom])
  const searching = term.trim() !== ""

  const pick = (name: string) => {
    void recordRecentEmoji(name)
    onPick(name)
  }
  const jump = (id: string) => {
    const el = grid.current?.querySelector<HTMLElement>(`[data-section="${CSS.escape(id)}"]`)
    if (grid.current && el) grid.current.scrollTop = el.offsetTop - grid.current.offsetTop
  }
  const currentTone = TONES.find((t) => t.value === tone) ?? TONES[0]

  return (
    <div class="picker emoji-picker" role="dialog" aria-label="Emoji picker"
      onKeyDown={(e) => {
        if (e.key === "Escape") {
          e.stopPropagation()
          onClose()
        } else if (e.key.startsWith("Arrow") && grid.current?.contains(document.activeElement) && moveFocus(grid.current, e.key)) {
          e.preventDefault()
        }
      }}>
      <div class="picker-top">
        <input type="search" aria-label="Search emoji" placeholder="Search emoji" ref={input} value={term}
          onInput={(e) => { setTerm(e.currentTarget.value); if (grid.current) grid.current.scrollTop = 0 }}
          onKeyDown={(e) => {
            if (e.key === "Enter" && searching && results[0]) pick(results[0].name)
            if (e.key === "ArrowDown") {
              // Handled here alone: the picker's own arrow handling would move on from the first emoji at once.
              e.preventDefault()
              e.stopPropagation()
              grid.current?.querySelector<HTMLButtonElement>("button.emoji-cell")?.focus()
            }
          }} />
        <button type="button" class="tone-toggle" aria-label={`Skin tone: ${currentTone.label}`} aria-expanded={tones} onClick={() => setTones(!tones)}>
          {charOf(tonedUnified(HAND, tone))}
        </button>
      </div>
      {tones && (
        <div class="tones" role="group" aria-label="Skin tones">
          {TONES.map((t) => (
            <button key={t.value} type="button" aria-label={t.label} aria-pressed={t.value === tone}
              onClick={() => { void setSkinTone(t.value); setTones(false) }}>{charOf(tonedUnified(HAND, t.value))}</button>
          ))}
        </div>
      )}
      {!searching && (
        <div class="emoji-categories" role="group" aria-label="Emoji categories">
          {all.map((s) => (
            <button key={s.id} type="button" aria-label={s.title} title={s.title} onClick={() => jump(s.id)}>
              {s.items[0]?.src ? <img src={s.items[0].src} alt="" /> : s.items[0]?.char}
            </button>
          ))}
        </div>
      )}
      <div class="emoji-grid" ref={grid}>
        {searching ? (
          <section aria-label="Search results">
            <div class="cells">{results.map((item) => <EmojiButton key={item.name} item={item} onPick={pick} onShow={setShown} />)}</div>
            {results.length === 0 && <p class="muted">No emoji found</p>}
          </section>
        ) : all.map((s) => (
          <section key={s.id} data-section={s.id} aria-label={s.title} class={s.id === "recent" ? "recent" : ""}>
            <h3>{s.title}</h3>
            <div class="cells">{s.items.map((item) => <EmojiButton key={item.name} item={item} onPick={pick} onShow={setShown} />)}</div>
          </section>
        ))}
      </div>
      <div class="emoji-preview">
        {shown ? <><span class="big" aria-hidden="true">{shown.src ? <img src={shown.src} alt="" /> : shown.char}</span> :{shown.name}:</> : <span class="muted">Pick an emoji</span>}
      </div>
    </div>
  )
}
