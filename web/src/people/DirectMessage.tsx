import type { Team } from "@mattermost/types/teams"
import type { UserProfile } from "@mattermost/types/users"
import { useEffect, useState } from "preact/hooks"
import { client, errorMessage } from "../app/api.ts"
import { navigate } from "../app/router.ts"
import { me } from "../app/state.ts"
import { refreshChannels } from "../channels/state.ts"
import { dialog } from "../shell/panels.ts"
import { Modal } from "../ui/Modal.tsx"

export const DirectMessage = ({ team }: { team: Team }) => {
  const [term, setTerm] = useState("")
  const [found, setFound] = useState<Array<UserProfile>>([])
  const [picked, setPicked] = useState<Array<UserProfile>>([])
  const [error, setError] = useState("")
  useEffect(() => {
    const t = setTimeout(() => {
      client.autocompleteUsers(term, team.id, "").then((r) => setFound(r.users.filter((u) => u.id !== me.value?.id)), () => setFound([]))
    }, 150)
    return () => clearTimeout(t)
  }, [term])
  const go = async () => {
    try {
      if (picked.length === 1) {
        await client.createDirectChannel([me.value!.id, picked[0].id])
        await refreshChannels()
        dialog.value = null
        navigate(`/${team.name}/messages/@${picked[0].username}`)
      } else {
        const c = await client.createGroupChannel([me.value!.id, ...picked.map((u) => u.id)])
        await refreshChannels()
        dialog.value = null
        navigate(`/${team.name}/messages/${c.name}`)
      }
    } catch (e) {
      setError(errorMessage(e))
    }
  }
  return (
    <Modal title="Direct message">
      {error && <p class="alert" role="alert">{error}</p>}
      <label>Find people<input type="search" value={term} autoFocus onInput={(e) => setTerm(e.currentTarget.value)} /></label>
      {picked.length > 0 && <p>To: {picked.map((u) => `@${u.username}`).join(", ")}</p>}
      <ul class="list">
        {found.map((u) => (
          <li key={u.id}><span>@{u.username} <span class="muted">{u.first_name} {u.last_name}</span></span>
            <button type="button" aria-label={`Add ${u.username}`} disabled={picked.some((p) => p.id === u.id)} onClick={() => setPicked([...picked, u])}>Add</button></li>
        ))}
      </ul>
      <button type="button" disabled={picked.length === 0} onClick={() => void go()}>Go</button>
    </Modal>
  )
}
