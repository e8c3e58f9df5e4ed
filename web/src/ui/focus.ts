import { useLayoutEffect, useRef } from "preact/hooks"

/**
 * Focus on mount. The HTML autofocus attribute is ignored for elements inserted after something already has focus
 * (which is always the case in this app: the button that opened the picker, the message box that pressed Up), so a
 * keyboard user's next keys would go to the wrong place. Dialogs opened with showModal() handle autofocus themselves.
 */
export const useFocus = <T extends HTMLElement>() => {
  const ref = useRef<T>(null)
  // A layout effect runs in the same task as the render, before the next key event: no typed character is lost.
  useLayoutEffect(() => {
    ref.current?.focus()
  }, [])
  return ref
}
