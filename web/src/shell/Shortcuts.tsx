import { Modal } from "../ui/Modal.tsx"

const mod = /Mac|iPhone|iPad/.test(navigator.platform) ? "⌘" : "Ctrl"

const GROUPS: Array<[string, Array<[string, string]>]> = [
  ["Navigation", [
    [`${mod}+K`, "Find a channel or person"],
    ["Alt+↑ / Alt+↓", "Previous / next channel"],
    ["Alt+Shift+↑ / Alt+Shift+↓", "Previous / next unread channel"],
    [`${mod}+/`, "This list of shortcuts"],
    ["Esc", "Close what is open; otherwise mark the channel read"]
  ]],
  ["Messages", [
    ["Enter", "Send"],
    ["Shift+Enter", "New line"],
    ["↑ (in an empty message box)", "Edit your last message"],
    ["Shift+↑ (in an empty message box)", "Reply to the last message"],
    ["/", "Slash commands, with their hints"],
    ["@ ~ :", "People, channels and emoji"]
  ]],
  ["Menus and lists", [
    ["↑ ↓ Home End", "Move in a menu or list"],
    ["Tab", "Leave a menu; the first Tab on a page offers “Skip to message box”"]
  ]]
]

/** Ctrl/Cmd+/ : the keyboard shortcuts, as Mattermost lists them. */
export default function Shortcuts() {
  return (
    <Modal title="Keyboard shortcuts" class="wide">
      <div class="dialog-body shortcuts">
        {GROUPS.map(([title, rows]) => (
          <section key={title} aria-labelledby={`keys-${title}`}>
            <h3 id={`keys-${title}`}>{title}</h3>
            <dl>
              {rows.map(([keys, what]) => <div key={keys} class="shortcut"><dt><kbd>{keys}</kbd></dt><dd>{what}</dd></div>)}
            </dl>
          </section>
        ))}
      </div>
    </Modal>
  )
}
