import type { Channel } from "@mattermost/types/channels"
import { useState } from "preact/hooks"
import { api, notice, useLoad } from "../admin/state.ts"

/** The team's channels the person is in (public and private), for a hook's or command's channel choice. */
export const useTeamChannels = (teamId: string) =>
  useLoad(async () => {
    const all = await api<Array<Channel>>("GET", `/api/v4/users/me/teams/${teamId}/channels`)
    return all.filter((c) => (c.type === "O" || c.type === "P") && !c.delete_at).sort((a, b) => a.display_name.localeCompare(b.display_name))
  }, [teamId])

/**
 * A secret or address shown in full with a Copy button (the clipboard of a secure context); the outcome is
 * announced. `label` names what is copied ("Copy URL of Build alerts").
 */
export const Copyable = ({ value, label }: { value: string; label: string }) => {
  const [copied, setCopied] = useState(false)
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value)
      setCopied(true)
      notice.value = "Copied to the clipboard"
    } catch {
      notice.value = "The browser refused the clipboard: select the text and copy it"
    }
  }
  return (
    <span class="copyable">
      <code>{value}</code>{" "}
      <button type="button" class="secondary small" aria-label={label} onClick={copy}>{copied ? "Copied" : "Copy"}</button>
    </span>
  )
}
