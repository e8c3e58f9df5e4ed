import type { Team } from "@mattermost/types/teams"
import { CustomStatus } from "../account/CustomStatus.tsx"
import { Settings } from "../account/Settings.tsx"
import { BrowseChannels } from "../channels/BrowseChannels.tsx"
import { CreateChannel } from "../channels/CreateChannel.tsx"
import { DirectMessage } from "../people/DirectMessage.tsx"
import { dialog } from "./panels.ts"

/** The dialog the `dialog` signal names, over the chat view. */
export const Dialogs = ({ team }: { team: Team }) => {
  switch (dialog.value) {
    case "browse": return <BrowseChannels team={team} />
    case "create": return <CreateChannel team={team} />
    case "dm": return <DirectMessage team={team} />
    case "settings": return <Settings />
    case "custom-status": return <CustomStatus />
    default: return null
  }
}
