import type { Channel } from "@mattermost/types/channels"
import type { Team } from "@mattermost/types/teams"
import type { UserProfile } from "@mattermost/types/users"
import { useEffect, useRef, useState } from "preact/hooks"
import { client, errorMessage } from "../api.ts"
import { navigate } from "../router.ts"
import { applyDisplay, collapsedThreads, me, militaryTime, refreshChannels } from "../store.ts"
import { dialog } from "./panels.ts"

/** A native <dialog>: focus trapped, Escape closes, the page behind inert. */
const Modal = ({ title, children }: { title: string; children: any }) => {
  const ref = useRef<HTMLDialogElement>(null)
  useEffect(() => {
    ref.current?.showModal()
  }, [])
  return (
    <dialog ref={ref} aria-label={title} onClose={() => (dialog.value = null)}>
      <header><h2>{title}</h2><button type="button" class="icon" aria-label="Close" onClick={() => (dialog.value = null)}>✕</button></header>
      {children}
    </dialog>
  )
}

const Browse = ({ team }: { team: Team }) => {
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

const Create = ({ team }: { team: Team }) => {
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

const DirectMessage = ({ team }: { team: Team }) => {
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

const LEVELS = [
  <option key="all" value="all">All new messages</option>,
  <option key="mention" value="mention">Mentions and direct messages</option>,
  <option key="none" value="none">Nothing</option>
]

const Settings = () => {
  const user = me.value!
  const [message, setMessage] = useState("")
  const [error, setError] = useState("")
  const saveProfile = async (e: Event) => {
    e.preventDefault()
    const data = new FormData(e.currentTarget as HTMLFormElement)
    try {
      me.value = await client.patchMe({ first_name: String(data.get("first_name")), last_name: String(data.get("last_name")), nickname: String(data.get("nickname")) })
      setMessage("Profile saved")
      setError("")
    } catch (err) {
      setError(errorMessage(err))
    }
  }
  const savePassword = async (e: Event) => {
    e.preventDefault()
    const form = e.currentTarget as HTMLFormElement
    const data = new FormData(form)
    try {
      await client.updateUserPassword(user.id, String(data.get("current")), String(data.get("next")))
      form.reset()
      setMessage("Password changed")
      setError("")
    } catch (err) {
      setError(errorMessage(err))
    }
  }
  // Applied at once (the checkbox follows the click), saved behind; a failed save puts the old value back.
  const display = async (name: string, value: string) => {
    const before = name === "use_military_time" ? String(militaryTime.value) : collapsedThreads.value ? "on" : "off"
    applyDisplay([{ category: "display_settings", name, value }])
    try {
      await client.savePreferences(user.id, [{ user_id: user.id, category: "display_settings", name, value }])
    } catch (err) {
      applyDisplay([{ category: "display_settings", name, value: before }])
      setError(errorMessage(err))
    }
  }
  const notifyFor = async (key: "desktop" | "push", level: string) => {
    try {
      me.value = await client.patchMe({ notify_props: { ...(me.value!.notify_props as any), [key]: level } } as any)
      setMessage("Notification preference saved")
    } catch (err) {
      setError(errorMessage(err))
    }
  }
  const picture = async (e: Event) => {
    const file = (e.currentTarget as HTMLInputElement).files?.[0]
    if (!file) return
    try {
      await client.uploadProfileImage(user.id, file)
      me.value = { ...user, last_picture_update: Date.now() }
      setMessage("Picture updated")
    } catch (err) {
      setError(errorMessage(err))
    }
  }
  return (
    <Modal title="Settings">
      {message && <p role="status">{message}</p>}
      {error && <p class="alert" role="alert">{error}</p>}
      <form onSubmit={saveProfile}>
        <h3>Profile</h3>
        <label>First name<input name="first_name" defaultValue={user.first_name} /></label>
        <label>Last name<input name="last_name" defaultValue={user.last_name} /></label>
        <label>Nickname<input name="nickname" defaultValue={user.nickname} /></label>
        <label>Profile picture<input type="file" accept="image/png,image/jpeg" onChange={picture} /></label>
        <button type="submit">Save profile</button>
      </form>
      <form onSubmit={savePassword}>
        <h3>Password</h3>
        <label>Current password<input name="current" type="password" autocomplete="current-password" required /></label>
        <label>New password<input name="next" type="password" autocomplete="new-password" required minLength={8} /></label>
        <button type="submit">Change password</button>
      </form>
      <h3>Display</h3>
      <p class="muted">The theme follows your system's light or dark setting.</p>
      <label class="check"><input type="checkbox" checked={militaryTime.value} onChange={(e) => void display("use_military_time", e.currentTarget.checked ? "true" : "false")} /> 24-hour clock</label>
      <label class="check"><input type="checkbox" checked={collapsedThreads.value} onChange={(e) => void display("collapsed_reply_threads", e.currentTarget.checked ? "on" : "off")} /> Collapsed reply threads (replies only in the thread panel)</label>
      <h3>Notifications</h3>
      <label>Desktop notifications for
        <select value={(user.notify_props as any)?.desktop ?? "mention"} onChange={(e) => void notifyFor("desktop", e.currentTarget.value)}>
          {LEVELS}
        </select>
      </label>
      <label>Mobile push notifications for
        <select value={(user.notify_props as any)?.push ?? "mention"} onChange={(e) => void notifyFor("push", e.currentTarget.value)}>
          {LEVELS}
        </select>
      </label>
      <button type="button" class="secondary" onClick={() => void Notification.requestPermission().then((p) => setMessage(`Desktop notifications: ${p}`))}>
        Enable desktop notifications
      </button>
      <button type="button" class="secondary" onClick={() => void client.sendTestNotificaiton().then(
        () => { setError(""); setMessage("Test notification sent: a direct message from system-bot, pushed to your devices") },
        (err) => setError(errorMessage(err))
      )}>
        Send a test notification
      </button>
    </Modal>
  )
}

const CustomStatus = () => {
  const [error, setError] = useState("")
  const submit = async (e: Event) => {
    e.preventDefault()
    const data = new FormData(e.currentTarget as HTMLFormElement)
    const text = String(data.get("text") ?? "").trim()
    try {
      if (text === "") await client.unsetCustomStatus()
      else await client.updateCustomStatus({ emoji: String(data.get("emoji") || "speech_balloon"), text, duration: "" } as any)
      me.value = await client.getMe()
      dialog.value = null
    } catch (err) {
      setError(errorMessage(err))
    }
  }
  const current = (() => {
    try {
      return JSON.parse(String(me.value?.props?.customStatus ?? "{}")) as { emoji?: string; text?: string }
    } catch {
      return {}
    }
  })()
  return (
    <Modal title="Custom status">
      {error && <p class="alert" role="alert">{error}</p>}
      <form onSubmit={submit}>
        <label>Status text<input name="text" maxLength={100} defaultValue={current.text ?? ""} autoFocus placeholder="In a meeting" /></label>
        <label>Emoji name<input name="emoji" maxLength={64} defaultValue={current.emoji ?? "speech_balloon"} /></label>
        <p class="muted">Leave the text empty to clear your status.</p>
        <button type="submit">Save status</button>
      </form>
    </Modal>
  )
}

export const Dialogs = ({ team }: { team: Team }) => {
  switch (dialog.value) {
    case "browse": return <Browse team={team} />
    case "create": return <Create team={team} />
    case "dm": return <DirectMessage team={team} />
    case "settings": return <Settings />
    case "custom-status": return <CustomStatus />
    default: return null
  }
}
