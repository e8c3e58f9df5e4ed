import { signal } from "@preact/signals"

/** A history-API router: the path is a signal, links call navigate, the back button updates it. */
export const location$ = signal(location.pathname + location.search)

export const navigate = (to: string, replace = false) => {
  if (to === location.pathname + location.search) return
  if (replace) history.replaceState(null, "", to)
  else history.pushState(null, "", to)
  location$.value = to
}

addEventListener("popstate", () => {
  location$.value = location.pathname + location.search
})

/** The address's path, without a trailing slash (Mattermost's invite links are `/signup_user_complete/?id=…`). */
export const path = () => {
  const p = location$.value.split("?")[0]
  return p.length > 1 ? p.replace(/\/+$/, "") || "/" : p
}
export const query = () => new URLSearchParams(location$.value.split("?")[1] ?? "")

/** Only same-origin paths are followed after sign-in (no open redirect). */
export const localPath = (p: string | null | undefined) =>
  typeof p === "string" && p.startsWith("/") && !p.startsWith("//") && !p.includes("\\") ? p : "/"

/** A link's click handler: plain left clicks navigate in the page; modified clicks keep the browser's behaviour. */
export const link = (to: string) => (event: MouseEvent) => {
  if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return
  event.preventDefault()
  navigate(to)
}
