import { signal } from "@preact/signals"
import { focusMessageBox } from "../ui/messageBox.ts"
import { drawerOpen } from "./drawer.ts"

/** The dialogs of channel and people management, the switcher and the shortcuts list: one open at a time. */
export type ModalState =
  | { readonly kind: "channel-info"; readonly channelId: string }
  | { readonly kind: "channel-members"; readonly channelId: string }
  | { readonly kind: "channel-edit"; readonly channelId: string; readonly field: "header" | "purpose" | "name" }
  | { readonly kind: "channel-notify"; readonly channelId: string }
  | { readonly kind: "channel-confirm"; readonly channelId: string; readonly action: "convert" | "archive" | "unarchive" | "leave" }
  | { readonly kind: "add-people"; readonly channelId: string }
  | { readonly kind: "browse" }
  | { readonly kind: "create-channel" }
  | { readonly kind: "invite" }
  | { readonly kind: "team-members" }
  | { readonly kind: "join-team" }
  | { readonly kind: "leave-team" }
  | { readonly kind: "switcher" }
  | { readonly kind: "shortcuts" }

export const modal = signal<ModalState | null>(null)

/** Opening one shuts the phone drawer it may have been opened from. */
export const openModal = (m: ModalState) => {
  drawerOpen.value = false
  modal.value = m
}

/** Closing any of them puts focus back in the message box. */
export const closeModal = () => {
  modal.value = null
  focusMessageBox()
}
