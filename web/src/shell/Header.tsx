import { useState } from "preact/hooks"
import { client } from "../app/api.ts"
import { link } from "../app/router.ts"
import { signOut } from "../app/session.ts"
import { connected, isAdmin, me } from "../app/state.ts"
import { Avatar } from "../people/Avatar.tsx"
import { customStatus } from "../people/customStatus.ts"
import { statuses } from "../people/state.ts"
import { TeamSwitcher } from "../people/TeamMenu.tsx"
import { Icon } from "../ui/Icon.tsx"
import { drawerOpen } from "./drawer.ts"
import { dialog, panel } from "./panels.ts"

export const Header = ({ teamName }: { teamName: string }) => {
  const [menu, setMenu] = useState(false)
  const [terms, setTerms] = useState("")
  const status = statuses.value[me.value?.id ?? ""] ?? "online"
  const setStatus = async (s: string) => {
    await client.updateStatus({ user_id: me.value!.id, status: s } as any).catch(() => undefined)
    statuses.value = { ...statuses.value, [me.value!.id]: s }
  }
  return (
    <header class="topbar">
      <button type="button" class="drawer-button" aria-label="Channels and teams" aria-expanded={drawerOpen.value} aria-controls="drawer"
        onClick={() => {
          drawerOpen.value = !drawerOpen.value
          // Focus moves into the drawer, to the open channel (or the first one).
          if (drawerOpen.value) requestAnimationFrame(() => (document.querySelector<HTMLElement>('#sidebar a[aria-current="page"]') ?? document.querySelector<HTMLElement>("#sidebar a"))?.focus())
        }}><Icon name="menu" /></button>
      <TeamSwitcher teamName={teamName} />
      <form role="search" class="search" onSubmit={(e) => { e.preventDefault(); if (terms.trim()) panel.value = { kind: "search", terms: terms.trim() } }}>
        <input type="search" aria-label="Search messages" placeholder="Search" value={terms} onInput={(e) => setTerms(e.currentTarget.value)} />
      </form>
      {!connected.value && <span class="offline" role="status">Reconnecting…</span>}
      <button type="button" class="icon" aria-label="Saved messages" title="Saved messages" onClick={() => (panel.value = { kind: "saved" })}><Icon name="bookmark" /></button>
      <div class="usermenu" onKeyDown={(e) => {
        // Escape closes the menu and gives focus back to its button, as a menu button should.
        if (e.key === "Escape" && menu) { setMenu(false); (e.currentTarget.firstElementChild as HTMLElement | null)?.focus() }
      }}>
        <button type="button" aria-haspopup="menu" aria-expanded={menu} aria-label={`Account menu, ${me.value?.username}, ${status}`} onClick={() => setMenu(!menu)}>
          <Avatar userId={me.value!.id} size={28} />
        </button>
        {menu && (
          <div class="menu right" role="menu" onClick={() => setMenu(false)}>
            <p class="muted">@{me.value?.username}</p>
            {(["online", "away", "dnd", "offline"] as const).map((s) => (
              <button key={s} role="menuitemradio" aria-checked={status === s} type="button" onClick={() => void setStatus(s)}>
                {{ online: "Online", away: "Away", dnd: "Do not disturb", offline: "Offline" }[s]}
              </button>
            ))}
            <button role="menuitem" type="button" onClick={() => (dialog.value = "custom-status")}>{customStatus(me.value!) ? `Custom status: ${customStatus(me.value!)}` : "Set a custom status"}</button>
            <button role="menuitem" type="button" onClick={() => (dialog.value = "settings")}>Settings</button>
            <button role="menuitem" type="button" onClick={() => (dialog.value = "security")}>Security</button>
            {isAdmin.value && <a role="menuitem" href="/admin_console" onClick={link("/admin_console")}>System console</a>}
            <button role="menuitem" type="button" onClick={() => void signOut()}>Log out</button>
          </div>
        )}
      </div>
    </header>
  )
}
