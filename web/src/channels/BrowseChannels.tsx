import type { Channel } from "@mattermost/types/channels"
import type { Team } from "@mattermost/types/teams"
import { useEffect, useState } from "preact/hooks"
import { client, errorMessage } from "../app/api.ts"
import { navigate } from "../app/router.ts"
import { me } from "../app/state.ts"
import { dialog } from "../shell/panels.ts"
import { Modal } from "../ui/Modal.tsx"
import { refreshChannels } from "./state.ts"

export const BrowseChannels = ({ team }: { team: Team }) => {
  const [list, setList] = useState<Array<Channel> | null>(null)
  const [error, setError] = useState("")
  useEffect(() => {
    client.getChannels(team.id, 0, 200).then(setList, (e) => setError(errorMessage(e)))
  }, [])
  const join = async (c: Channel) => {
    try {
      await client.addToChannel(me.value!.id, c.id)
      await refreshChannels()
      dialog.value = null
      navigate(`/${team.name}/channels/${c.name}`)
    } catch (e) {
      setError(errorMessage(e))
    }
  }
  return (
    <Modal title="Browse channels">
      {error && <p class="alert" role="alert">{error}</p>}
      <ul class="list">
        {list?.map((c) => (
          <li key={c.id}><span><strong># {c.display_name}</strong> <span class="muted">{c.purpose}</span></span>
            <button type="button" aria-label={`Join ${c.display_name}`} onClick={() => void join(c)}>Join</button></li>
        ))}
      </ul>
    </Modal>
  )
}
