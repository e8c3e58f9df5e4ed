/**
 * An attachment's colour bar, as Mattermost draws it: Slack's three names (good, warning, danger) have fixed colours,
 * anything else must be a hex colour (an integration's text never reaches the style attribute otherwise).
 */
const NAMED: Record<string, string> = { good: "#00c100", warning: "#dede01", danger: "#e40303" }

export const barColor = (color: unknown): string | undefined => {
  if (typeof color !== "string") return undefined
  const named = NAMED[color.toLowerCase()]
  if (named !== undefined) return named
  const hex = color.startsWith("#") ? color : `#${color}`
  return /^#([0-9a-f]{3}|[0-9a-f]{4}|[0-9a-f]{6}|[0-9a-f]{8})$/i.test(hex) ? hex : undefined
}
