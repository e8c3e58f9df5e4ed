import type { Channel } from "@mattermost/types/channels"
import type { Team } from "@mattermost/types/teams"
import { useState } from "preact/hooks"
import { client, errorMessage } from "../app/api.ts"
import { navigate } from "../app/router.ts"
import { closeModal } from "../shell/modal.ts"
import { Modal } from "../ui/Modal.tsx"
import { refreshChannels } from "./state.ts"
import { displayNameProblem, urlFromDisplayName, urlProblem } from "./validation.ts"

/**
 * Create a channel: the URL follows the name until edited by hand, its full address is previewed, and problems are
 * shown next to the field they concern (the server's too: a URL already taken is the URL's problem).
 */
export default function CreateChannel({ team }: { team: Team }) {
  const [display, setDisplay] = useState("")
  const [url, setUrl] = useState("")
  const [urlEdited, setUrlEdited] = useState(false)
  const [purpose, setPurpose] = useState("")
  const [priv, setPriv] = useState(false)
  const [tried, setTried] = useState(false)
  const [serverError, setServerError] = useState<{ field: "url" | "form"; text: string } | null>(null)
  const name = urlEdited ? url : urlFromDisplayName(display)
  const displayError = tried ? displayNameProblem(display) : ""
  const urlError = serverError?.field === "url" ? serverError.text : tried || urlEdited ? urlProblem(name) : ""
  const submit = async (e: Event) => {
    e.preventDefault()
    setTried(true)
    setServerError(null)
    if (displayNameProblem(display) || urlProblem(name)) {
      ;(e.currentTarget as HTMLFormElement).querySelector<HTMLElement>("[aria-invalid=true]")?.focus()
      return
    }
    try {
      const c = await client.createChannel({ team_id: team.id, name, display_name: display.trim(), type: priv ? "P" : "O", purpose: purpose.trim() } as Channel)
      await refreshChannels()
      closeModal()
      navigate(`/${team.name}/channels/${c.name}`)
    } catch (err) {
      const text = errorMessage(err)
      const id = (err as { server_error_id?: string }).server_error_id ?? ""
      setServerError({ field: /name|url|exists/i.test(`${id} ${text}`) && !/display/i.test(id) ? "url" : "form", text })
    }
  }
  return (
    <Modal title="Create a channel">
      <form onSubmit={submit} class="dialog-body" noValidate>
        <label>Name
          <input value={display} maxLength={64} aria-invalid={!!displayError} aria-describedby="create-name-error"
            onInput={(e) => { setDisplay(e.currentTarget.value); setServerError(null) }} />
        </label>
        <p id="create-name-error" class="alert field-error">{displayError}</p>
        <label>URL
          <input value={name} maxLength={64} aria-invalid={!!urlError} aria-describedby="create-url-preview create-url-error"
            onInput={(e) => { setUrl(e.currentTarget.value); setUrlEdited(true); setServerError(null) }} />
        </label>
        <p id="create-url-preview" class="muted url-preview">{location.origin}/{team.name}/channels/<strong>{name || "…"}</strong></p>
        <p id="create-url-error" class="alert field-error">{urlError}</p>
        <label>Purpose (optional)<input value={purpose} maxLength={250} onInput={(e) => setPurpose(e.currentTarget.value)} /></label>
        <fieldset class="choice">
          <legend>Who can find it</legend>
          <label class="check"><input type="radio" name="kind" checked={!priv} onChange={() => setPriv(false)} /> Public: anyone in the team can find and join it</label>
          <label class="check"><input type="radio" name="kind" checked={priv} onChange={() => setPriv(true)} /> Private: only people added to it</label>
        </fieldset>
        {serverError?.field === "form" && <p class="alert" role="alert">{serverError.text}</p>}
        <div class="row end"><button type="button" class="secondary" onClick={closeModal}>Cancel</button><button type="submit">Create channel</button></div>
      </form>
    </Modal>
  )
}
