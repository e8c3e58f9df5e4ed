import { computed, effect, signal } from "@preact/signals"
import { currentTeamId } from "../app/state.ts"
import "./theme.css"

/**
 * Themes as Mattermost keeps them: the preference category "theme", name "" (every team) or a team's id (that team
 * only), value the theme's JSON (sidebarBg, centerChannelBg, linkColor, …), so a theme chosen here shows in the
 * official apps and the other way round. Applied as CSS custom properties on the root element; without a theme
 * preference the page keeps its own light or dark colours (following the system).
 */
export type Theme = Record<string, string>

/** Mattermost's built-in themes (its webapp's Preferences.THEMES), Denim being the default. */
export const THEMES: Readonly<Record<"denim" | "sapphire" | "quartz" | "indigo" | "onyx", Theme>> = {
  denim: {
    type: "Denim", sidebarBg: "#1e325c", sidebarText: "#ffffff", sidebarUnreadText: "#ffffff", sidebarTextHoverBg: "#28427b",
    sidebarTextActiveBorder: "#5d89ea", sidebarTextActiveColor: "#ffffff", sidebarHeaderBg: "#192a4d", sidebarHeaderTextColor: "#ffffff",
    sidebarTeamBarBg: "#14213e", onlineIndicator: "#3db887", awayIndicator: "#ffbc1f", dndIndicator: "#d24b4e", mentionBg: "#ffffff",
    mentionBj: "#ffffff", mentionColor: "#1e325c", centerChannelBg: "#ffffff", centerChannelColor: "#3f4350", newMessageSeparator: "#cc8f00",
    linkColor: "#386fe5", buttonBg: "#1c58d9", buttonColor: "#ffffff", errorTextColor: "#d24b4e", mentionHighlightBg: "#ffd470",
    mentionHighlightLink: "#1b1d22", codeTheme: "github"
  },
  sapphire: {
    type: "Sapphire", sidebarBg: "#174ab5", sidebarText: "#ffffff", sidebarUnreadText: "#ffffff", sidebarTextHoverBg: "#2a58ba",
    sidebarTextActiveBorder: "#57b5f0", sidebarTextActiveColor: "#ffffff", sidebarHeaderBg: "#1542a2", sidebarHeaderTextColor: "#ffffff",
    sidebarTeamBarBg: "#133a91", onlineIndicator: "#3db887", awayIndicator: "#ffbc1f", dndIndicator: "#d24b4e", mentionBg: "#ffffff",
    mentionBj: "#ffffff", mentionColor: "#174ab5", centerChannelBg: "#ffffff", centerChannelColor: "#3f4350", newMessageSeparator: "#15b7b7",
    linkColor: "#1c58d9", buttonBg: "#1c58d9", buttonColor: "#ffffff", errorTextColor: "#d24b4e", mentionHighlightBg: "#7ff0f0",
    mentionHighlightLink: "#0d6e6e", codeTheme: "github"
  },
  quartz: {
    type: "Quartz", sidebarBg: "#f4f4f6", sidebarText: "#090a0b", sidebarUnreadText: "#2d3039", sidebarTextHoverBg: "#ebebed",
    sidebarTextActiveBorder: "#32a4ec", sidebarTextActiveColor: "#2d3039", sidebarHeaderBg: "#e8e9ed", sidebarHeaderTextColor: "#2d3039",
    sidebarTeamBarBg: "#dddfe4", onlineIndicator: "#3db887", awayIndicator: "#f5ab07", dndIndicator: "#d24b4e", mentionBg: "#1c58d9",
    mentionBj: "#1c58d9", mentionColor: "#ffffff", centerChannelBg: "#ffffff", centerChannelColor: "#3f4350", newMessageSeparator: "#15b7b7",
    linkColor: "#1c58d9", buttonBg: "#1c58d9", buttonColor: "#ffffff", errorTextColor: "#d24b4e", mentionHighlightBg: "#7ff0f0",
    mentionHighlightLink: "#0d6e6e", codeTheme: "github"
  },
  indigo: {
    type: "Indigo", sidebarBg: "#0f1a2e", sidebarText: "#ffffff", sidebarUnreadText: "#ffffff", sidebarTextHoverBg: "#222c3f",
    sidebarTextActiveBorder: "#1279ba", sidebarTextActiveColor: "#ffffff", sidebarHeaderBg: "#152231", sidebarHeaderTextColor: "#dddfe4",
    sidebarTeamBarBg: "#05080f", onlineIndicator: "#3db887", awayIndicator: "#f5ab00", dndIndicator: "#d24b4e", mentionBg: "#1c58d9",
    mentionBj: "#1c58d9", mentionColor: "#ffffff", centerChannelBg: "#0a111f", centerChannelColor: "#dddfe4", newMessageSeparator: "#81a3ef",
    linkColor: "#5d89ea", buttonBg: "#386fe5", buttonColor: "#ffffff", errorTextColor: "#d24b4e", mentionHighlightBg: "#133a91",
    mentionHighlightLink: "#a4f4f4", codeTheme: "solarized-dark"
  },
  onyx: {
    type: "Onyx", sidebarBg: "#121317", sidebarText: "#ffffff", sidebarUnreadText: "#ffffff", sidebarTextHoverBg: "#25262a",
    sidebarTextActiveBorder: "#1592e0", sidebarTextActiveColor: "#ffffff", sidebarHeaderBg: "#1b1d22", sidebarHeaderTextColor: "#dddfe4",
    sidebarTeamBarBg: "#000000", onlineIndicator: "#3db887", awayIndicator: "#f5ab00", dndIndicator: "#d24b4e", mentionBg: "#1c58d9",
    mentionBj: "#1c58d9", mentionColor: "#ffffff", centerChannelBg: "#090a0b", centerChannelColor: "#dddfe4", newMessageSeparator: "#1adbdb",
    linkColor: "#5d89ea", buttonBg: "#386fe5", buttonColor: "#ffffff", errorTextColor: "#da6c6e", mentionHighlightBg: "#0d6e6e",
    mentionHighlightLink: "#a4f4f4", codeTheme: "monokai"
  }
}

/** Names of themes older Mattermost versions stored (LegacyThemeType) and the built-in each became. */
const LEGACY: Readonly<Record<string, keyof typeof THEMES>> = {
  mattermost: "denim", organization: "sapphire", "mattermost dark": "indigo", "windows dark": "onyx"
}

/** The theme preferences of the person: name ("" or a team id) → the stored JSON. */
export const themePrefs = signal<Record<string, string>>({})

// Only colours are taken from a stored theme: no url(), no expressions, nothing a custom property could misuse.
const COLOUR = /^(#[0-9a-f]{3,8}|rgba?\(\s*[\d.]+%?\s*,\s*[\d.]+%?\s*,\s*[\d.]+%?\s*(,\s*[\d.]+%?\s*)?\))$/i

/** A stored theme read as Mattermost's webapp reads it: missing colours from the built-in its type names. */
export const parseTheme = (value: string | undefined): Theme | null => {
  if (!value) return null
  let raw: unknown
  try {
    raw = JSON.parse(value)
  } catch {
    return null
  }
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) return null
  const given = raw as Record<string, unknown>
  const type = typeof given.type === "string" ? given.type : "custom"
  const key = (type.toLowerCase() in THEMES ? type.toLowerCase() : LEGACY[type.toLowerCase()]) as keyof typeof THEMES | undefined
  const theme: Theme = { ...THEMES[key ?? "denim"], type: key ? THEMES[key].type : type }
  for (const [name, v] of Object.entries(given)) {
    if (name !== "type" && typeof v === "string" && COLOUR.test(v.trim())) theme[name] = v.trim()
    if (name === "codeTheme" && typeof v === "string" && /^[\w-]{1,40}$/.test(v)) theme[name] = v
  }
  return theme
}

/** The theme in force: this team's own, else the one for every team, else none (the page's own colours). */
export const activeTheme = computed<Theme | null>(() =>
  parseTheme(themePrefs.value[currentTeamId.value]) ?? parseTheme(themePrefs.value[""]))

/** Every theme preference of the person (at sign-in and after a reconnect): what is not there any more is gone. */
export const loadThemePrefs = (prefs: ReadonlyArray<{ category: string; name: string; value: string }>) => {
  themePrefs.value = Object.fromEntries(prefs.filter((p) => p.category === "theme").map((p) => [p.name, p.value]))
}

/** Theme preferences saved or deleted here or on another device (preferences_changed / _deleted). */
export const applyThemePrefs = (prefs: ReadonlyArray<{ category: string; name: string; value: string }>, removed = false) => {
  const mine = prefs.filter((p) => p.category === "theme")
  if (mine.length === 0) return
  const next = { ...themePrefs.value }
  for (const p of mine) {
    if (removed) delete next[p.name]
    else next[p.name] = p.value
  }
  themePrefs.value = next
}

// Colour arithmetic for contrast (WCAG 2 relative luminance), so any theme stays readable.
type Rgb = [number, number, number]
const toRgb = (colour: string): Rgb => {
  const c = colour.trim()
  if (c.startsWith("#")) {
    let h = c.slice(1)
    if (h.length === 3 || h.length === 4) h = [...h.slice(0, 3)].map((x) => x + x).join("")
    return [0, 2, 4].map((i) => parseInt(h.slice(i, i + 2), 16) || 0) as Rgb
  }
  const parts = c.match(/[\d.]+/g)?.map(Number) ?? [0, 0, 0]
  return [parts[0] ?? 0, parts[1] ?? 0, parts[2] ?? 0]
}
const hex = (rgb: Rgb) => `#${rgb.map((v) => Math.round(Math.min(255, Math.max(0, v))).toString(16).padStart(2, "0")).join("")}`
const luminance = ([r, g, b]: Rgb) => {
  const f = (v: number) => {
    const s = v / 255
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4
  }
  return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b)
}
export const contrast = (a: string, b: string) => {
  const [x, y] = [luminance(toRgb(a)), luminance(toRgb(b))]
  return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05)
}
/** `a` mixed into `b` by the fraction `t` of `a`. */
export const mix = (a: string, b: string, t: number) => {
  const [x, y] = [toRgb(a), toRgb(b)]
  return hex([0, 1, 2].map((i) => x[i] * t + y[i] * (1 - t)) as Rgb)
}
/**
 * The colour, moved toward black or white (whichever the background is further from) just enough to reach the
 * contrast ratio on that background (4.5:1 for text): a theme's pale link on white stays its hue, only darker.
 */
export const readable = (colour: string, background: string, ratio = 4.5) => {
  if (contrast(colour, background) >= ratio) return hex(toRgb(colour))
  const toward = luminance(toRgb(background)) > 0.18 ? "#000000" : "#ffffff"
  for (let t = 0.05; t <= 1; t += 0.05) {
    const c = mix(toward, colour, t)
    if (contrast(c, background) >= ratio) return c
  }
  return toward
}

/** The page's custom properties for a theme (styles.css and theme.css read them). */
export const themeProperties = (t: Theme): Record<string, string> => {
  const bg = t.centerChannelBg
  const fg = readable(t.centerChannelColor, bg, 7)
  const side = t.sidebarBg
  const header = t.sidebarHeaderBg || side
  const sideFg = readable(t.sidebarText, side)
  const buttonBg = t.buttonBg
  const mark = t.mentionHighlightBg
  const accent = readable(t.linkColor, bg)
  const dark = luminance(toRgb(bg)) < 0.18
  return {
    "--bg": hex(toRgb(bg)),
    "--fg": fg,
    "--muted": readable(mix(fg, bg, 0.72), bg),
    "--line": mix(fg, bg, 0.18),
    "--hover": mix(fg, bg, 0.07),
    "--accent": accent,
    // Text on accent-coloured surfaces (banners, the skip link), apart from the buttons' own pair below.
    "--accent-fg": readable(t.buttonColor, accent),
    "--button-bg": buttonBg,
    "--button-fg": readable(t.buttonColor, buttonBg),
    "--danger": readable(t.errorTextColor, bg),
    "--mention": mark,
    "--mention-link": readable(t.mentionHighlightLink, mark),
    "--search-mark": mark,
    "--search-mark-fg": readable(fg, mark),
    "--side": side,
    "--side-fg": sideFg,
    "--side-text": readable(mix(t.sidebarText, side, 0.85), side),
    "--side-muted": readable(mix(t.sidebarText, side, 0.72), side),
    "--side-unread": readable(t.sidebarUnreadText, side),
    "--side-hover": t.sidebarTextHoverBg,
    "--side-active-bg": mix(t.sidebarTextActiveBorder, side, 0.22),
    "--side-active-fg": readable(t.sidebarTextActiveColor, mix(t.sidebarTextActiveBorder, side, 0.22)),
    "--side-active-border": t.sidebarTextActiveBorder,
    "--side-header": header,
    "--side-header-fg": readable(t.sidebarHeaderTextColor, header),
    "--side-header-muted": readable(mix(t.sidebarHeaderTextColor, header, 0.75), header),
    "--side-line": mix(t.sidebarText, side, 0.16),
    "--badge": t.mentionBg,
    "--badge-fg": readable(t.mentionColor, t.mentionBg),
    "--online": t.onlineIndicator,
    "--away": t.awayIndicator,
    "--dnd": t.dndIndicator,
    "--new-messages": readable(t.newMessageSeparator, bg, 3),
    "color-scheme": dark ? "dark" : "light"
  }
}

let applied: Array<string> = []
/** Sets (or, without a theme, removes) the properties on <html>; inline, so they win over the system's dark mode. */
export const applyTheme = (theme: Theme | null) => {
  const root = document.documentElement.style
  for (const name of applied) root.removeProperty(name)
  applied = []
  delete document.documentElement.dataset.theme
  if (!theme) return
  for (const [name, value] of Object.entries(themeProperties(theme))) {
    root.setProperty(name, value)
    applied.push(name)
  }
  document.documentElement.dataset.theme = (theme.type ?? "custom").toLowerCase()
}

effect(() => applyTheme(activeTheme.value))
