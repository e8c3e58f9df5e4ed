import type { ServerChannel as Channel, ChannelMembership } from "@mattermost/types/channels"
import type { Team } from "@mattermost/types/teams"
import type { UserProfile } from "@mattermost/types/users"
import { useEffect, useState } from "preact/hooks"
import { client, errorMessage } from "../app/api.ts"
import { navigate } from "../app/router.ts"
import { me, put } from "../app/state.ts"
import { LocalTime } from "../people/LocalTime.tsx"
import { users } from "../people/state.ts"
import { PersonName } from "../people/PersonName.tsx"
import { fullName, UserPicker } from "../people/UserPicker.tsx"
import { renderMarkdown } from "../posts/markdown.ts"
import { Avatar } from "../people/Avatar.tsx"
import { openLink } from "../posts/Post.tsx"
import { closeModal, openModal, type ModalState } from "../shell/modal.ts"
import { MenuButton } from "../ui/Menu.tsx"
import { Modal } from "../ui/Modal.tsx"
import ChannelNotifications from "../notifications/ChannelNotifications.tsx"
import {
  archiveChannel, convertToPrivate, isChannelAdmin, isTownSquare, leaveChannel, otherUserId, patchChannel, renameChannel, unarchiveChannel
} from "./actions.ts"
import { memberCounts, refreshMemberCount } from "./ChannelHeader.tsx"
import { channelLabel, channels, membersVersion, refreshChannels } from "./state.ts"
import { displayNameProblem, urlProblem } from "./validation.ts"

const KIND = { O: "Public channel", P: "Private channel", D: "Direct message", G: "Group message" } as Record<string, string>

const Info = ({ channel, team }: { channel: Channel; team: Team }) => {
  const other = channel.type === "D" ? users.value[otherUserId(channel)] : undefined
  return (
    <Modal title={`About ${channelLabel(channel)}`}>
      <div class="dialog-body">
        {other ? (
          <div class="profile-card">
            <Avatar userId={other.id} size={56} />
            <div><p><strong>{fullName(other) || other.username}</strong></p><p class="muted">@{other.username}{other.position ? ` · ${other.position}` : ""}</p><LocalTime user={other} /></div>
          </div>
        ) : (
          <dl class="facts">
            <dt>Kind</dt><dd>{KIND[channel.type]}{channel.delete_at > 0 ? ", archived" : ""}</dd>
            {channel.type !== "G" && <><dt>URL</dt><dd><code>{`${location.origin}/${team.name}/channels/${channel.name}`}</code></dd></>}
            <dt>Members</dt><dd>{memberCounts.value[channel.id] ?? "…"}</dd>
            <dt>Purpose</dt><dd>{channel.purpose || <span class="muted">None</span>}</dd>
          </dl>
        )}
        <h3>Header</h3>
        {channel.header ? <div class="message" onClick={openLink} dangerouslySetInnerHTML={{ __html: renderMarkdown(channel.header) }} /> : <p class="muted">No header</p>}
        {channel.delete_at === 0 && (
          <p class="row">
            <button type="button" class="secondary" onClick={() => openModal({ kind: "channel-edit", channelId: channel.id, field: "header" })}>Edit header</button>
            {channel.type !== "D" && channel.type !== "G" && <button type="button" class="secondary" onClick={() => openModal({ kind: "channel-edit", channelId: channel.id, field: "purpose" })}>Edit purpose</button>}
          </p>
        )}
      </div>
    </Modal>
  )
}

const roleOf = (m: ChannelMembership | undefined) => (m && ((m.roles ?? "").split(" ").includes("channel_admin") || (m as { scheme_admin?: boolean }).scheme_admin) ? "admin" : "member")

const Members = ({ channel, team }: { channel: Channel; team: Team }) => {
  const [list, setList] = useState<Array<ChannelMembership> | null>(null)
  const [term, setTerm] = useState("")
  const [error, setError] = useState("")
  const [status, setStatus] = useState("")
  const [busy, setBusy] = useState<string | null>(null)
  const admin = isChannelAdmin(channel.id)
  const conversation = channel.type === "G" || channel.type === "D"
  const load = async () => {
    const [memberships, profiles] = await Promise.all([client.getChannelMembers(channel.id, 0, 200), client.getProfilesInChannel(channel.id, 0, 200)])
    put(users, profiles)
    setList(memberships)
  }
  // Fetched again whenever the members change, by anyone (channels/events.ts counts user_added, user_removed and
  // channel_member_updated per channel), so the list is live while the dialog is open.
  const version = membersVersion.value[channel.id] ?? 0
  useEffect(() => { load().catch((e) => setError(errorMessage(e))) }, [channel.id, version])
  const act = async (userId: string, run: () => Promise<unknown>, done: string) => {
    setBusy(userId)
    setError("")
    try {
      await run()
      await load()
      void refreshMemberCount(channel.id)
      setStatus(done)
    } catch (e) {
      setError(errorMessage(e))
    } finally {
      setBusy(null)
    }
  }
  const needle = term.trim().toLowerCase()
  const shown = (list ?? [])
    .map((m) => ({ m, u: users.value[m.user_id] }))
    .filter(({ u }) => !needle || (u && `${u.username} ${fullName(u)} ${u.nickname}`.toLowerCase().includes(needle)))
    .sort((a, b) => (roleOf(b.m) === "admin" ? 1 : 0) - (roleOf(a.m) === "admin" ? 1 : 0) || (a.u?.username ?? "").localeCompare(b.u?.username ?? ""))
  const memberIds = (list ?? []).map((m) => m.user_id)
  return (
    <Modal title={`Members of ${channelLabel(channel)}`} class="wide">
      <div class="dialog-body">
        {error && <p class="alert" role="alert">{error}</p>}
        <p role="status" class="notice">{status}</p>
        <label>Search members<input type="search" value={term} onInput={(e) => setTerm(e.currentTarget.value)} placeholder="Name or username" /></label>
        {list === null && !error && <p class="muted">Loading…</p>}
        <ul class="list people" aria-label="Members">
          {shown.map(({ m, u }) => {
            const name = u?.username ?? m.user_id
            const isAdminRole = roleOf(m) === "admin"
            const self = m.user_id === me.value?.id
            return (
              <li key={m.user_id}>
                <span class="who"><Avatar userId={m.user_id} size={24} /> <PersonName user={u} fallback={name} /></span>
                <span class="row nowrap">
                  {!conversation && <span class={isAdminRole ? "tag strong" : "tag"}>{isAdminRole ? "Channel admin" : "Member"}</span>}
                  {!conversation && channel.delete_at === 0 && (admin || !self) && (
                    <MenuButton label={`Actions for ${name}`} buttonClass="icon" placement="bottom-end" items={() => [
                      admin && !isAdminRole && { label: "Make channel admin", onSelect: () => void act(m.user_id, () => client.updateChannelMemberSchemeRoles(channel.id, m.user_id, true, true), `${name} is now a channel admin`) },
                      admin && isAdminRole && { label: "Remove channel admin", onSelect: () => void act(m.user_id, () => client.updateChannelMemberSchemeRoles(channel.id, m.user_id, true, false), `${name} is no longer a channel admin`) },
                      !self && !isTownSquare(channel) && { label: "Remove from channel", danger: true, onSelect: () => void act(m.user_id, () => client.removeFromChannel(m.user_id, channel.id), `${name} was removed from the channel`) }
                    ]}>
                      <span aria-hidden="true">⋯</span>
                    </MenuButton>
                  )}
                  {busy === m.user_id && <span class="muted">…</span>}
                </span>
              </li>
            )
          })}
        </ul>
        {!conversation && channel.delete_at === 0 && (
          <UserPicker label="Add people to the channel" exclude={memberIds} busy={busy}
            find={(t) => client.autocompleteUsers(t, team.id, channel.id, { limit: 30 }).then((r) => r.out_of_channel ?? [])}
            action={{ verb: "Add", run: (u) => void act(u.id, () => client.addToChannel(u.id, channel.id), `${u.username} was added to the channel`) }} />
        )}
      </div>
    </Modal>
  )
}

const LIMITS = { header: 1024, purpose: 250 }

const EditText = ({ channel, field }: { channel: Channel; field: "header" | "purpose" }) => {
  const [value, setValue] = useState(channel[field] ?? "")
  const [error, setError] = useState("")
  const save = async (e: Event) => {
    e.preventDefault()
    try {
      await patchChannel(channel.id, { [field]: value.trim() })
      closeModal()
    } catch (err) {
      setError(errorMessage(err))
    }
  }
  const title = field === "header" ? "Edit header" : "Edit purpose"
  const left = LIMITS[field] - [...value].length
  return (
    <Modal title={`${title} of ${channelLabel(channel)}`}>
      <form onSubmit={save} class="dialog-body">
        <label>{field === "header" ? "Header" : "Purpose"}
          <textarea rows={4} value={value} maxLength={LIMITS[field]} aria-describedby={`${field}-help`} aria-invalid={!!error}
            onInput={(e) => setValue(e.currentTarget.value)}
            onKeyDown={(e) => { if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) void save(e) }} />
        </label>
        <p id={`${field}-help`} class="muted">
          {field === "header" ? "Shown under the channel name; markdown and links work." : "What the channel is for; shown under its name and in Browse channels."} {left} characters left.
        </p>
        {error && <p class="alert" role="alert">{error}</p>}
        <div class="row end"><button type="button" class="secondary" onClick={closeModal}>Cancel</button><button type="submit">Save</button></div>
      </form>
    </Modal>
  )
}

const Rename = ({ channel, team }: { channel: Channel; team: Team }) => {
  const [display, setDisplay] = useState(channel.display_name)
  const [url, setUrl] = useState(channel.name)
  const [error, setError] = useState("")
  const [tried, setTried] = useState(false)
  const displayError = displayNameProblem(display)
  const urlError = isTownSquare(channel) && url !== channel.name ? "Town Square's URL cannot change." : urlProblem(url)
  const save = async (e: Event) => {
    e.preventDefault()
    setTried(true)
    if (displayError || urlError) return
    try {
      await renameChannel(channel, display.trim(), url)
      closeModal()
    } catch (err) {
      setError(errorMessage(err))
    }
  }
  return (
    <Modal title={`Rename ${channelLabel(channel)}`}>
      <form onSubmit={save} class="dialog-body" noValidate>
        <label>Display name
          <input value={display} maxLength={64} aria-invalid={tried && !!displayError} aria-describedby="rename-name-error" onInput={(e) => setDisplay(e.currentTarget.value)} />
        </label>
        <p id="rename-name-error" class="alert field-error">{tried ? displayError : ""}</p>
        <label>URL
          <input value={url} maxLength={64} aria-invalid={!!urlError} aria-describedby="rename-url-preview rename-url-error" disabled={isTownSquare(channel)}
            onInput={(e) => setUrl(e.currentTarget.value)} />
        </label>
        <p id="rename-url-preview" class="muted url-preview">{location.origin}/{team.name}/channels/<strong>{url}</strong></p>
        <p id="rename-url-error" class="alert field-error">{urlError}</p>
        {error && <p class="alert" role="alert">{error}</p>}
        <div class="row end"><button type="button" class="secondary" onClick={closeModal}>Cancel</button><button type="submit">Save</button></div>
      </form>
    </Modal>
  )
}

const Confirm = ({ channel, action }: { channel: Channel; action: "convert" | "archive" | "unarchive" | "leave" }) => {
  const [error, setError] = useState("")
  const [working, setWorking] = useState(false)
  const label = channelLabel(channel)
  const count = memberCounts.value[channel.id]
  const text = {
    convert: [`Convert ${label} to a private channel?`, `Its history and members stay; people who are not members will no longer find it or be able to join without an invitation. This cannot be undone here.`, "Convert to private channel"],
    archive: [`Archive ${label}?`, `Nobody will be able to post in it; its history stays readable and searchable, and it can be unarchived.`, "Archive channel"],
    unarchive: [`Unarchive ${label}?`, `Its members will be able to post in it again.`, "Unarchive channel"],
    leave: channel.type === "P"
      ? [`Leave ${label}?`, count === 1
        ? `You are the last member of this private channel: once you leave, nobody can see it or be added to it again.`
        : `It is private: you will need to be added again to come back.`, "Leave channel"]
      : [`Leave ${label}?`, `You can join it again from Browse channels.`, "Leave channel"]
  }[action]
  const run = async () => {
    setWorking(true)
    try {
      if (action === "convert") await convertToPrivate(channel)
      else if (action === "archive") await archiveChannel(channel)
      else if (action === "unarchive") await unarchiveChannel(channel)
      else await leaveChannel(channel)
      closeModal()
    } catch (err) {
      setError(errorMessage(err))
      setWorking(false)
    }
  }
  return (
    <Modal title={text[0]}>
      <div class="dialog-body">
        <p id="confirm-text" class={action === "leave" && count === 1 && channel.type === "P" ? "warning" : undefined}>{text[1]}</p>
        {error && <p class="alert" role="alert">{error}</p>}
        <div class="row end">
          <button type="button" class="secondary" onClick={closeModal}>Cancel</button>
          <button type="button" class={action === "unarchive" ? undefined : "danger"} disabled={working} onClick={() => void run()}>{text[2]}</button>
        </div>
      </div>
    </Modal>
  )
}

/** A direct message becomes a new group message with the people added (the DM itself stays), as in Mattermost. */
const AddPeople = ({ channel, team }: { channel: Channel; team: Team }) => {
  const [current, setCurrent] = useState<Array<string>>(channel.type === "D" ? [me.value!.id, otherUserId(channel)] : [])
  const [picked, setPicked] = useState<Array<UserProfile>>([])
  const [error, setError] = useState("")
  useEffect(() => {
    if (channel.type === "G") client.getProfilesInChannel(channel.id, 0, 20).then((p) => { put(users, p); setCurrent(p.map((u) => u.id)) }, (e) => setError(errorMessage(e)))
  }, [channel.id])
  const total = new Set([...current, ...picked.map((u) => u.id)]).size
  const go = async () => {
    try {
      const group = await client.createGroupChannel([...new Set([...current, ...picked.map((u) => u.id)])])
      await refreshChannels()
      closeModal()
      navigate(`/${team.name}/messages/${group.name}`)
    } catch (err) {
      setError(errorMessage(err))
    }
  }
  return (
    <Modal title={`Add people to ${channelLabel(channel)}`}>
      <div class="dialog-body">
        <p class="muted">This starts a new group message with everyone in this conversation and the people you add (up to 8 in all).</p>
        {picked.length > 0 && (
          <ul class="chips" aria-label="People to add">
            {picked.map((u) => <li key={u.id}>@{u.username} <button type="button" class="icon small" aria-label={`Remove ${u.username}`} onClick={() => setPicked(picked.filter((p) => p.id !== u.id))}>✕</button></li>)}
          </ul>
        )}
        <UserPicker label="Find people" exclude={[...current, ...picked.map((u) => u.id)]}
          find={(t) => client.autocompleteUsers(t, team.id, "", { limit: 30 }).then((r) => r.users)}
          action={{ verb: "Add", run: (u) => total < 8 && setPicked([...picked, u]) }} />
        {error && <p class="alert" role="alert">{error}</p>}
        <div class="row end"><button type="button" class="secondary" onClick={closeModal}>Cancel</button>
          <button type="button" disabled={picked.length === 0} onClick={() => void go()}>Start group message</button></div>
      </div>
    </Modal>
  )
}

/** The channel dialogs, loaded when one is first opened. */
export default function ChannelDialogs({ m, team }: { m: ModalState; team: Team }) {
  if (!("channelId" in m)) return null
  const channel = channels.value[m.channelId]
  if (!channel) return null
  switch (m.kind) {
    case "channel-info": return <Info channel={channel} team={team} />
    case "channel-members": return <Members channel={channel} team={team} />
    case "channel-edit": return m.field === "name" ? <Rename channel={channel} team={team} /> : <EditText key={m.field} channel={channel} field={m.field} />
    case "channel-notify": return <ChannelNotifications channel={channel} />
    case "channel-confirm": return <Confirm channel={channel} action={m.action} />
    case "add-people": return <AddPeople channel={channel} team={team} />
    default: return null
  }
}
