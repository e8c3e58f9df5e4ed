import { useState } from "preact/hooks"
import { EMOJI, searchEmoji } from "./emoji.ts"
import { useFocus } from "../ui/focus.ts"

export const EmojiPicker = ({ onPick, onClose }: { onPick: (name: string) => void; onClose: () => void }) => {
  const [term, setTerm] = useState("")
  const names = searchEmoji(term)
  const search = useFocus<HTMLInputElement>()
  return (
    <div class="picker" role="dialog" aria-label="Emoji picker" onKeyDown={(e) => e.key === "Escape" && onClose()}>
      <input type="search" aria-label="Search emoji" placeholder="Search emoji" ref={search} value={term} onInput={(e) => setTerm(e.currentTarget.value)}
        onKeyDown={(e) => e.key === "Enter" && names[0] && onPick(names[0])} />
      <div class="grid">
        {names.map((n) => (
          <button key={n} type="button" aria-label={n} title={`:${n}:`} onClick={() => onPick(n)}>{EMOJI[n]}</button>
        ))}
        {names.length === 0 && <p class="muted">No emoji found</p>}
      </div>
    </div>
  )
}
