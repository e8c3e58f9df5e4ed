/**
 * The client's pictograms as inline SVG (stroked in the text colour). Emoji characters looked right only where an
 * emoji font is installed: on a minimal Linux desktop or a headless browser they were empty boxes.
 */
const PATHS = {
  plus: "M12 5v14M5 12h14",
  lock: "M6 11h12v9H6zM8.5 11V8a3.5 3.5 0 0 1 7 0v3",
  bookmark: "M7 4h10v16l-5-4-5 4z",
  pin: "M9 4h6l-1 5 3 3H7l3-3zM12 12v8",
  paperclip: "M16.5 7.5l-7 7a2 2 0 0 0 2.8 2.8l7.2-7.2a4 4 0 0 0-5.7-5.7L6.6 11.6a6 6 0 0 0 8.5 8.5l5.4-5.4",
  threads: "M4 5h16v10H9l-5 4z",
  chevron: "M6 9l6 6 6-6",
  people: "M9 11a3.5 3.5 0 1 0 0-7 3.5 3.5 0 0 0 0 7zM2.5 20a6.5 6.5 0 0 1 13 0M16 4.5a3.5 3.5 0 0 1 0 6.5M18 14a6 6 0 0 1 3.5 6",
  menu: "M4 6h16M4 12h16M4 18h16"
} as const

export type IconName = keyof typeof PATHS

/** Decorative unless `label` is given, which makes it an image with that accessible name. */
export const Icon = ({ name, label }: { name: IconName; label?: string }) => (
  <svg class="svg-icon" viewBox="0 0 24 24" width="1em" height="1em" focusable="false"
    {...(label === undefined ? { "aria-hidden": "true" } : { role: "img", "aria-label": label })}
    fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round">
    <path d={PATHS[name]} />
  </svg>
)
