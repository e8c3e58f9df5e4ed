import type { Team } from "@mattermost/types/teams"
import { useState } from "preact/hooks"
import { api, formatDate, notice, useLoad } from "../admin/state.ts"
import { ConsoleDialog, FormError, Outcome, TableWrap, useConfirm, useFormSubmit } from "../admin/ui.tsx"
import { Copyable, useTeamChannels } from "./ui.tsx"

interface Hook {
  id: string
  channel_id: string
  display_name: string
  description: string
  channel_locked: boolean
  username: string
  icon_url: string
  create_at: number
  last_used?: number
}

const hookUrl = (id: string) => `${location.origin}/hooks/${id}`

/**
 * Incoming webhooks of the team (GET /api/v4/hooks/incoming?team_id): each with its channel and its URL to copy;
 * Add (POST), Edit (PUT with the whole hook), Delete after a confirmation. Once made, the hook's URL is shown in a
 * dialog with Copy, as Mattermost's "Setup successful" page does.
 */
export default function IncomingWebhooks({ team }: { team: Team }) {
  const hooks = useLoad(() => api<Array<Hook>>("GET", `/api/v4/hooks/incoming?team_id=${team.id}&per_page=200`), [team.id])
  const channels = useTeamChannels(team.id)
  const [editing, setEditing] = useState<Hook | "new" | null>(null)
  const [made, setMade] = useState<Hook | null>(null)
  const channelName = (id: string) => channels.data?.find((c) => c.id === id)?.display_name ?? "A channel you are not in"
  const title = (h: Hook) => h.display_name || `Webhook to ${channelName(h.channel_id)}`
  const confirm = useConfirm(() => hooks.reload())
  const askDelete = (h: Hook) => confirm.ask({
    title: `Delete ${title(h)}?`, action: "Delete",
    text: "Programs using its URL will no longer be able to post. This cannot be undone.",
    run: () => api("DELETE", `/api/v4/hooks/incoming/${h.id}`), done: `${title(h)} deleted`
  })
  const rows = hooks.data ?? []
  return (
    <section aria-labelledby="incoming-title">
      <div class="row page-head">
        <h2 id="incoming-title">Incoming webhooks</h2>
        <button type="button" onClick={() => setEditing("new")}>Add incoming webhook</button>
      </div>
      <p class="muted">Other programs post to a channel by sending JSON such as {'{"text": "Hello"}'} to the webhook's URL. Anyone who has the URL can post, so keep it secret.</p>
      <Outcome error={hooks.error || channels.error} />
      <TableWrap label="Incoming webhooks">
        <table>
          <thead><tr><th scope="col">Name</th><th scope="col">Channel</th><th scope="col">URL</th><th scope="col">Last used</th><th scope="col">Actions</th></tr></thead>
          <tbody>
            {rows.map((h) => (
              <tr key={h.id}>
                <td><strong>{title(h)}</strong>{h.description && <div class="muted small">{h.description}</div>}</td>
                <td>{channelName(h.channel_id)}{h.channel_locked ? " (locked)" : ""}</td>
                <td><Copyable value={hookUrl(h.id)} label={`Copy URL of ${title(h)}`} /></td>
                <td>{formatDate(h.last_used)}</td>
                <td class="row">
                  <button type="button" class="secondary" aria-label={`Edit ${title(h)}`} onClick={() => setEditing(h)}>Edit</button>
                  <button type="button" class="danger" aria-label={`Delete ${title(h)}`} onClick={() => askDelete(h)}>Delete</button>
                </td>
              </tr>
            ))}
            {hooks.data && rows.length === 0 && <tr><td colSpan={5}>No incoming webhooks yet.</td></tr>}
          </tbody>
        </table>
      </TableWrap>
      {editing && (
        <HookForm team={team} hook={editing === "new" ? null : editing} channels={channels.data ?? []} onClose={() => setEditing(null)}
          onSaved={(h, created) => { setEditing(null); void hooks.reload(); if (created) setMade(h) }} />
      )}
      {made && (
        <ConsoleDialog title="Incoming webhook created" onClose={() => setMade(null)}>
          <p>Programs post to {channelName(made.channel_id)} by sending JSON to this URL:</p>
          <p><Copyable value={hookUrl(made.id)} label="Copy webhook URL" /></p>
          <div class="row dialog-actions"><button type="button" onClick={() => setMade(null)}>Done</button></div>
        </ConsoleDialog>
      )}
      {confirm.dialog}
    </section>
  )
}

const HookForm = ({ team, hook, channels, onClose, onSaved }: {
  team: Team
  hook: Hook | null
  channels: ReadonlyArray<{ id: string; display_name: string }>
  onClose: () => void
  onSaved: (hook: Hook, created: boolean) => void
}) => {
  const { error, submit } = useFormSubmit(async (text, d) => {
    const body = {
      channel_id: String(d.get("channel_id")),
      display_name: text("display_name"),
      description: text("description"),
      channel_locked: d.get("channel_locked") === "on",
      username: hook?.username ?? "",
      icon_url: hook?.icon_url ?? ""
    }
    const saved = hook
      ? await api<Hook>("PUT", `/api/v4/hooks/incoming/${hook.id}`, { ...body, id: hook.id })
      : await api<Hook>("POST", "/api/v4/hooks/incoming", body)
    notice.value = `${saved.display_name || "Webhook"} ${hook ? "saved" : "created"}`
    onSaved(saved, !hook)
  })
  return (
    <ConsoleDialog title={hook ? "Edit incoming webhook" : "Add incoming webhook"} onClose={onClose}>
      <form onSubmit={submit}>
        <FormError error={error} />
        <label>Title<input name="display_name" maxLength={64} defaultValue={hook?.display_name ?? ""} /></label>
        <label>Description<input name="description" maxLength={500} defaultValue={hook?.description ?? ""} /></label>
        <label for="hook-channel">Channel</label>
        <select id="hook-channel" name="channel_id" required>
          <option value="" disabled selected={!hook}>Choose a channel of {team.display_name}</option>
          {channels.map((c) => <option key={c.id} value={c.id} selected={c.id === hook?.channel_id}>{c.display_name}</option>)}
        </select>
        <label class="check"><input type="checkbox" name="channel_locked" defaultChecked={hook?.channel_locked ?? false} aria-describedby="lock-help" /> Lock to this channel</label>
        <p id="lock-help" class="help muted">When locked, the webhook posts only to this channel; otherwise a payload's "channel" may name another.</p>
        <div class="row dialog-actions"><button type="submit">{hook ? "Save" : "Add"}</button><button type="button" class="secondary" onClick={onClose}>Cancel</button></div>
      </form>
    </ConsoleDialog>
  )
}
