import { client } from "../app/api.ts"
import { navigate } from "../app/router.ts"
import { signOut } from "../app/session.ts"
import { connected, isAdmin, me } from "../app/state.ts"
import { Avatar } from "../people/Avatar.tsx"
import { customStatus } from "../people/customStatus.ts"
import { statuses } from "../people/state.ts"
import { TeamSwitcher } from "../people/TeamMenu.tsx"
import { Icon } from "../ui/Icon.tsx"
import { MenuButton } from "../ui/Menu.tsx"
import { drawerOpen } from "./drawer.ts"
import { dialog, panel } from "./panels.ts"

export const Header = ({ teamName }: { teamName: string }) => {
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
      {/* The terms are read from the field itself when the form is sent (not from state updated on input), so an Enter
          pressed right after typing, before a re-render, still searches. */}
      <form role="search" class="search" onSubmit={(e) => {
        e.preventDefault()
        const terms = (e.currentTarget.elements.namedItem("terms") as HTMLInputElement | null)?.value.trim() ?? ""
        if (terms) panel.value = { kind: "search", terms }
      }}>
        <input type="search" name="terms" aria-label="Search messages" placeholder="Search" />
      </form>
      {!connected.value && <span class="offline" role="status">Reconnecting…</span>}
      <button type="button" class="icon" aria-label="Saved messages" title="Saved messages" onClick={() => (panel.value = { kind: "saved" })}><Icon name="bookmark" /></button>
      <div class="usermenu">
        <MenuButton label={`Account menu, ${me.value?.username}, ${status}`} buttonClass="" placement="bottom-end" items={() => [
          ...(["online", "away", "dnd", "offline"] as const).map((s) => ({
            label: { online: "Online", away: "Away", dnd: "Do not disturb", offline: "Offline" }[s], radio: true, checked: status === s, onSelect: () => void setStatus(s)
          })),
          "-",
          { label: customStatus(me.value!) ? `Custom status: ${customStatus(me.value!)}` : "Set a custom status", onSelect: () => (dialog.value = "custom-status") },
          { label: "Settings", onSelect: () => (dialog.value = "settings") },
          { label: "Security", onSelect: () => (dialog.value = "security") },
          isAdmin.value && { label: "System console", onSelect: () => navigate("/admin_console") },
          "-",
          { label: "Log out", onSelect: () => void signOut() }
        ]}>
          <Avatar userId={me.value!.id} size={28} />
        </MenuButton>
      </div>
    </header>
  )
}
