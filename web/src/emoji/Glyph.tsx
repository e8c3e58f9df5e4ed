import { glyphOrAsk } from "./catalog.ts"
import "./emoji.css"

/** An emoji by name as a character or a custom image, or `:name:` while (or if) nothing knows the name. */
export const EmojiGlyph = ({ name }: { name: string }) => {
  const found = glyphOrAsk(name)
  if (!found) return <span class="emoji-unknown">:{name}:</span>
  if (found.kind === "image") return <img class="emoji custom" src={found.src} alt={`:${name}:`} />
  return <span class="emoji" aria-hidden="true">{found.char}</span>
}
