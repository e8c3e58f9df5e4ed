import { useEffect, useState } from "preact/hooks"
import { loadSystemEmoji, systemEmoji } from "../emoji/catalog.ts"

/**
 * The emoji picker, loaded on first open with the full emoji set (emoji/Picker.tsx and emoji/data.ts are chunks of
 * their own, not part of the first load); until both are here, a busy placeholder of the same size holds the place.
 */
type PickerProps = { onPick: (name: string) => void; onClose: () => void }
type PickerComponent = (props: PickerProps) => preact.JSX.Element

let loaded: PickerComponent | undefined
const loadPicker = () => import("../emoji/Picker.tsx").then((m) => (loaded = m.Picker))

export const EmojiPicker = (props: PickerProps) => {
  const [Picker, setPicker] = useState<PickerComponent | undefined>(() => loaded)
  const [failed, setFailed] = useState(false)
  useEffect(() => {
    if (!Picker) loadPicker().then((p) => setPicker(() => p), () => setFailed(true))
    if (!systemEmoji.peek()) loadSystemEmoji().catch(() => setFailed(true))
  }, [])
  if (Picker && systemEmoji.value) return <Picker {...props} />
  return (
    <div class="picker emoji-picker" role="dialog" aria-label="Emoji picker" aria-busy={!failed}
      onKeyDown={(e) => e.key === "Escape" && props.onClose()}>
      <p class="muted" role="status">{failed ? "The emoji could not be loaded. Check the connection and try again." : "Loading emoji…"}</p>
    </div>
  )
}
