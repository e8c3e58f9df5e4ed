import type { ComponentChildren } from "preact"
import { createPortal } from "preact/compat"
import { useEffect, useLayoutEffect, useRef } from "preact/hooks"

/**
 * A layer above the page for menus, pickers and popovers: rendered at the end of <body> (a portal), so no scrolling
 * list, sidebar or channel header can clip it, and placed next to its anchor by Floating UI, flipped to the other side
 * and shifted inward near the window's edges, its height capped to the room left. Floating UI is loaded on first use
 * (it is not part of the first load) and kept warm once the page is idle.
 */
type Placement = "bottom-start" | "bottom-end" | "top-start" | "top-end" | "right-start" | "left-start"

const positioning = () => import("@floating-ui/dom")
if (typeof requestIdleCallback === "function") requestIdleCallback(() => void positioning())

export const Floating = ({ anchor, placement = "bottom-start", onClose, children, class: cls = "", label, role }: {
  anchor: HTMLElement | null
  placement?: Placement
  onClose: () => void
  children: ComponentChildren
  class?: string
  label?: string
  role?: "dialog" | "presentation"
}) => {
  const ref = useRef<HTMLDivElement>(null)
  useLayoutEffect(() => {
    const el = ref.current
    if (!el || !anchor) return
    let stop = () => {}
    let gone = false
    void positioning().then(({ autoUpdate, computePosition, flip, offset, shift, size }) => {
      if (gone) return
      const place = () =>
        void computePosition(anchor, el, {
          strategy: "fixed",
          placement,
          middleware: [
            offset(4),
            flip({ padding: 8 }),
            shift({ padding: 8 }),
            size({ padding: 8, apply: ({ availableHeight }) => { el.style.maxHeight = `${Math.max(120, availableHeight)}px` } })
          ]
        }).then(({ x, y }) => {
          el.style.left = `${x}px`
          el.style.top = `${y}px`
          el.style.opacity = "1"
        })
      stop = autoUpdate(anchor, el, place)
    })
    return () => {
      gone = true
      stop()
    }
  }, [anchor, placement])

  // A press outside (not on the anchor, which toggles on its own) closes the layer.
  useEffect(() => {
    const down = (e: PointerEvent) => {
      const target = e.target as Node
      if (ref.current?.contains(target) || anchor?.contains(target)) return
      onClose()
    }
    document.addEventListener("pointerdown", down, true)
    return () => document.removeEventListener("pointerdown", down, true)
  }, [anchor, onClose])

  return createPortal(
    <div ref={ref} class={`floating ${cls}`} role={role} aria-label={label} style={{ position: "fixed", left: 0, top: 0, opacity: 0 }}
      onKeyDown={(e) => {
        if (e.key !== "Escape") return
        // Escape closes the layer and gives focus back to what opened it (and goes no further: the page's own Escape,
        // marking the channel read, is for when nothing is open).
        e.stopPropagation()
        onClose()
        anchor?.focus()
      }}>
      {children}
    </div>,
    // Inside a modal dialog the rest of the page is inert: the layer then lives in the dialog (still above its scroll).
    anchor?.closest("dialog") ?? document.body
  )
}
