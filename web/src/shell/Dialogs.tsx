import type { Team } from "@mattermost/types/teams"
import { lazy, Suspense } from "preact/compat"
import { CustomStatus } from "../account/CustomStatus.tsx"
import { DirectMessage } from "../people/DirectMessage.tsx"
import { dialog } from "./panels.ts"

// Settings are opened now and then, not on every load: their code is fetched when first opened.
const Settings = lazy(() => import("../account/Settings.tsx"))
const Security = lazy(() => import("../account/Security.tsx"))

/** The dialog the `dialog` signal names, over the chat view. */
export const Dialogs = ({ team }: { team: Team }) => {
  switch (dialog.value) {
    case "dm": return <DirectMessage team={team} />
    case "settings": return <Suspense fallback={null}><Settings /></Suspense>
    case "security": return <Suspense fallback={null}><Security /></Suspense>
    case "custom-status": return <CustomStatus />
    default: return null
  }
}
