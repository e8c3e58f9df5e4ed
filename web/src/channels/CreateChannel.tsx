import type { Channel } from "@mattermost/types/channels"
import type { Team } from "@mattermost/types/teams"
import { useState } from "preact/hooks"
import { client, errorMessage } from "../app/api.ts"
import { navigate } from "../app/router.ts"
import { dialog } from "../shell/panels.ts"
import { Modal } from "../ui/Modal.tsx"
import { refreshChannels } from "./state.ts"

export const CreateChannel = ({ team }: { team: Team }) => {
  const [error, setError] = useState("")
  const submit = async (e: Event) => {
    e.preventDefault()
    const data = new FormData(e.currentTarget as HTMLFormElement)
    const display = String(data.get("display_name")).trim()
    const name = display.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "") || `c-${Date.now().toString(36)}`
    try {
      const c = await client.createChannel({ team_id: team.id, name, display_name: display, type: data.get("private") ? "P" : "O", purpose: String(data.get("purpose") ?? "") } as Channel)
      await refreshChannels()
      dialog.value = null
      navigate(`/${team.name}/channels/${c.name}`)
    } catch (err) {
      setError(errorMessage(err))
    }
  }
  return (
    <Modal title="Create a channel">
      {error && <p class="alert" role="alert">{error}</p>}
      <form onSubmit={submit}>
        <label>Name<input name="display_name" required maxLength={64} autoFocus /></label>
        <label>Purpose (optional)<input name="purpose" maxLength={250} /></label>
        <label class="check"><input type="checkbox" name="private" /> Private channel</label>
        <button type="submit">Create channel</button>
      </form>
    </Modal>
  )
}
