import { signal } from "@preact/signals"

/** On a phone-sized window the sidebar is a drawer: open or shut (shut again by any navigation). */
export const drawerOpen = signal(false)
