import type { ComponentChildren } from "preact"
import { useCallback, useLayoutEffect, useRef, useState } from "preact/hooks"
import { Floating } from "./Floating.tsx"

export interface MenuItem {
  readonly label: string
  readonly onSelect: () => void
  readonly danger?: boolean
  /** A menuitemcheckbox / menuitemradio's state; plain items leave it out. */
  readonly checked?: boolean
  /** One of a group of choices (menuitemradio) rather than an on/off item (menuitemcheckbox). */
  readonly radio?: boolean
  readonly hint?: string
}

/** Items, with `"-"` between groups. */
export type MenuEntries = ReadonlyArray<MenuItem | "-" | false | null | undefined>

/**
 * A menu button (WAI-ARIA's pattern): the button opens a menu in the page's top layer; focus moves to its first item,
 * Up/Down/Home/End move between items, a letter jumps to the next item starting with it, Escape or Tab closes it and
 * focus returns to the button. The menu is built when opened, so a closed menu costs nothing.
 */
export const MenuButton = ({ label, buttonClass = "icon", children, items, placement = "bottom-start", title, onToggle }: {
  label: string
  buttonClass?: string
  children: ComponentChildren
  items: () => MenuEntries
  placement?: "bottom-start" | "bottom-end" | "top-start" | "top-end"
  title?: string
  /** Told when the menu opens and closes (a post keeps its action bar while its menu is open). */
  onToggle?: (open: boolean) => void
}) => {
  const [open, setOpenState] = useState(false)
  const setOpen = (next: boolean) => {
    setOpenState(next)
    onToggle?.(next)
  }
  const button = useRef<HTMLButtonElement>(null)
  const close = useCallback(() => setOpen(false), [onToggle])
  return (
    <>
      <button ref={button} type="button" class={buttonClass} aria-haspopup="menu" aria-expanded={open} aria-label={label} title={title}
        onClick={() => setOpen(!open)}
        onKeyDown={(e) => {
          if (e.key === "ArrowDown" && !open) { e.preventDefault(); setOpen(true) }
        }}>
        {children}
      </button>
      {open && <MenuList label={label} anchor={button.current} items={items()} placement={placement} onClose={close} />}
    </>
  )
}

const MenuList = ({ label, anchor, items, placement, onClose }: {
  label: string
  anchor: HTMLElement | null
  items: MenuEntries
  placement: "bottom-start" | "bottom-end" | "top-start" | "top-end"
  onClose: () => void
}) => {
  const list = useRef<HTMLDivElement>(null)
  const entries = items.filter((i): i is MenuItem | "-" => !!i)
  useLayoutEffect(() => {
    list.current?.querySelector<HTMLElement>("[role^=menuitem]")?.focus()
  }, [])
  const onKeyDown = (e: KeyboardEvent) => {
    const all = [...(list.current?.querySelectorAll<HTMLElement>("[role^=menuitem]") ?? [])]
    const at = all.indexOf(document.activeElement as HTMLElement)
    const go = (i: number) => { e.preventDefault(); all[(i + all.length) % all.length]?.focus() }
    if (e.key === "ArrowDown") go(at + 1)
    else if (e.key === "ArrowUp") go(at - 1)
    else if (e.key === "Home") go(0)
    else if (e.key === "End") go(all.length - 1)
    else if (e.key === "Tab") onClose()
    else if (e.key.length === 1 && /\S/.test(e.key) && !e.ctrlKey && !e.metaKey && !e.altKey) {
      const key = e.key.toLowerCase()
      const next = [...all.slice(at + 1), ...all.slice(0, at + 1)].find((el) => el.textContent?.trim().toLowerCase().startsWith(key))
      if (next) { e.preventDefault(); next.focus() }
    }
  }
  return (
    <Floating anchor={anchor} placement={placement} onClose={onClose} class="menu-layer">
      <div ref={list} class="menu" role="menu" aria-label={label} onKeyDown={onKeyDown}>
        {entries.map((item, i) =>
          item === "-" ? <hr key={`sep-${i}`} role="separator" /> : (
            <button key={item.label} type="button" tabIndex={-1} class={item.danger ? "danger" : undefined}
              role={item.checked === undefined ? "menuitem" : item.radio ? "menuitemradio" : "menuitemcheckbox"} aria-checked={item.checked}
              onClick={() => { onClose(); anchor?.focus(); item.onSelect() }}>
              {item.label}{item.hint && <span class="muted hint">{item.hint}</span>}
            </button>
          )
        )}
      </div>
    </Floating>
  )
}
