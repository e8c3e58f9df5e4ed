import { useEffect } from "preact/hooks"
import { notice } from "../app/state.ts"

/**
 * The message about something that happened elsewhere (removed from a channel, a team left on another device). The
 * live region is always in the page, so that a screen reader announces the text when it appears; it goes away on
 * its own after a while, or with its button.
 */
export const Notice = () => {
  const text = notice.value
  useEffect(() => {
    if (!text) return
    const timer = setTimeout(() => (notice.value = ""), 12_000)
    return () => clearTimeout(timer)
  }, [text])
  return (
    <div class="toast-region" role="status">
      {text && (
        <p class="toast">
          <span>{text}</span>
          <button type="button" class="icon" aria-label="Dismiss" onClick={() => (notice.value = "")}>✕</button>
        </p>
      )}
    </div>
  )
}
