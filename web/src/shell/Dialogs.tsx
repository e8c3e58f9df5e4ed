import type { Team } from "@mattermost/types/teams"
import { CustomStatus } from "../account/CustomStatus.tsx"
import { Settings } from "../account/Settings.tsx"
import { DirectMessage } from "../people/DirectMessage.tsx"
import { dialog } from "./panels.ts"

/** The dialog the `dialog` signal names, over the chat view. */
export const Dialogs = ({ team }: { team: Team }) => {
  switch (dialog.value) {
    case "dm": return <DirectMessage team={team} />
    case "settings": return <Settings />
    case "custom-status": return <CustomStatus />
    default: return null
  }
}
