import type { Team } from "@mattermost/types/teams"
import { useState } from "preact/hooks"
import { api, notice, useLoad } from "../admin/state.ts"
import { ConsoleDialog, FormError, Outcome, TableWrap, useConfirm, useFormSubmit } from "../admin/ui.tsx"
import { Copyable, useTeamChannels } from "./ui.tsx"

interface Hook {
  id: string
  token: string
  channel_id: string
  trigger_words: Array<string>
  trigger_when: 0 | 1
  callback_urls: Array<string>
  display_name: string
  description: string
  content_type: string
  username: string
  icon_url: string
}

const lines = (s: string) => s.split(/\n/).map((l) => l.trim()).filter(Boolean)

/**
 * The team's outgoing webhooks (GET /api/v4/hooks/outgoing?team_id): a channel's messages whose first word is one of
 * the trigger words (or, with no words, every message of the channel) are sent to the callback URLs. Each shows its
 * token with Copy and Regenerate; Add, Edit, Delete after a confirmation.
 */
export default function OutgoingWebhooks({ team }: { team: Team }) {
  const hooks = useLoad(() => api<Array<Hook>>("GET", `/api/v4/hooks/outgoing?team_id=${team.id}&per_page=200`), [team.id])
  const channels = useTeamChannels(team.id)
  const [editing, setEditing] = useState<Hook | "new" | null>(null)
  const channelName = (id: string) => (id ? channels.data?.find((c) => c.id === id)?.display_name ?? "A channel you are not in" : "Any public channel")
  const title = (h: Hook) => h.display_name || `Webhook on ${h.trigger_words.join(", ") || channelName(h.channel_id)}`
  const confirm = useConfirm(() => hooks.reload())
  const askRegenerate = (h: Hook) => confirm.ask({
    title: `Regenerate the token of ${title(h)}?`, action: "Regenerate",
    text: "The callback's service must be given the new token: requests with the old one are no longer from this server.",
    run: () => api("POST", `/api/v4/hooks/outgoing/${h.id}/regen_token`), done: `Token of ${title(h)} regenerated`
  })
  const askDelete = (h: Hook) => confirm.ask({
    title: `Delete ${title(h)}?`, action: "Delete",
    text: "Messages will no longer be sent to its callback URLs. This cannot be undone.",
    run: () => api("DELETE", `/api/v4/hooks/outgoing/${h.id}`), done: `${title(h)} deleted`
  })
  const rows = hooks.data ?? []
  return (
    <section aria-labelledby="outgoing-title">
      <div class="row page-head">
        <h2 id="outgoing-title">Outgoing webhooks</h2>
        <button type="button" onClick={() => setEditing("new")}>Add outgoing webhook</button>
      </div>
      <p class="muted">Messages starting with a trigger word are sent to the callback URLs, whose answer is posted in reply.</p>
      <Outcome error={hooks.error || channels.error} />
      <TableWrap label="Outgoing webhooks">
        <table>
          <thead><tr><th scope="col">Name</th><th scope="col">Triggers</th><th scope="col">Callback URLs</th><th scope="col">Token</th><th scope="col">Actions</th></tr></thead>
          <tbody>
            {rows.map((h) => (
              <tr key={h.id}>
                <td><strong>{title(h)}</strong>{h.description && <div class="muted small">{h.description}</div>}<div class="muted small">{channelName(h.channel_id)}</div></td>
                <td>{h.trigger_words.join(", ") || "Every message"}{h.trigger_words.length > 0 && <div class="muted small">{h.trigger_when === 1 ? "First word starts with one" : "First word is one"}</div>}</td>
                <td>{h.callback_urls.map((u) => <div key={u}><code>{u}</code></div>)}<div class="muted small">{h.content_type || "application/x-www-form-urlencoded"}</div></td>
                <td><Copyable value={h.token} label={`Copy token of ${title(h)}`} /></td>
                <td class="row">
                  <button type="button" class="secondary" aria-label={`Regenerate token of ${title(h)}`} onClick={() => askRegenerate(h)}>Regenerate token</button>
                  <button type="button" class="secondary" aria-label={`Edit ${title(h)}`} onClick={() => setEditing(h)}>Edit</button>
                  <button type="button" class="danger" aria-label={`Delete ${title(h)}`} onClick={() => askDelete(h)}>Delete</button>
                </td>
              </tr>
            ))}
            {hooks.data && rows.length === 0 && <tr><td colSpan={5}>No outgoing webhooks yet.</td></tr>}
          </tbody>
        </table>
      </TableWrap>
      {editing && (
        <HookForm team={team} hook={editing === "new" ? null : editing} channels={channels.data ?? []} onClose={() => setEditing(null)}
          onSaved={() => { setEditing(null); void hooks.reload() }} />
      )}
      {confirm.dialog}
    </section>
  )
}

const HookForm = ({ team, hook, channels, onClose, onSaved }: {
  team: Team
  hook: Hook | null
  channels: ReadonlyArray<{ id: string; display_name: string; type: string }>
  onClose: () => void
  onSaved: () => void
}) => {
  const { error, submit } = useFormSubmit(async (text) => {
    const body = {
      team_id: team.id,
      display_name: text("display_name"),
      description: text("description"),
      channel_id: text("channel_id"),
      trigger_words: lines(text("trigger_words")),
      trigger_when: text("trigger_when") === "1" ? 1 : 0,
      callback_urls: lines(text("callback_urls")),
      content_type: text("content_type"),
      username: hook?.username ?? "",
      icon_url: hook?.icon_url ?? ""
    }
    const saved = hook
      ? await api<Hook>("PUT", `/api/v4/hooks/outgoing/${hook.id}`, { ...body, id: hook.id })
      : await api<Hook>("POST", "/api/v4/hooks/outgoing", body)
    notice.value = `${saved.display_name || "Webhook"} ${hook ? "saved" : "created"}`
    onSaved()
  })
  return (
    <ConsoleDialog title={hook ? "Edit outgoing webhook" : "Add outgoing webhook"} onClose={onClose}>
      <form onSubmit={submit}>
        <FormError error={error} />
        <label>Title<input name="display_name" maxLength={64} defaultValue={hook?.display_name ?? ""} /></label>
        <label>Description<input name="description" maxLength={500} defaultValue={hook?.description ?? ""} /></label>
        <label for="outgoing-content-type">Content type</label>
        <select id="outgoing-content-type" name="content_type">
          <option value="application/x-www-form-urlencoded" selected={hook?.content_type !== "application/json"}>application/x-www-form-urlencoded</option>
          <option value="application/json" selected={hook?.content_type === "application/json"}>application/json</option>
        </select>
        <label for="outgoing-channel">Channel</label>
        <select id="outgoing-channel" name="channel_id">
          <option value="" selected={!hook?.channel_id}>Any public channel (trigger words required)</option>
          {channels.filter((c) => c.type === "O").map((c) => <option key={c.id} value={c.id} selected={c.id === hook?.channel_id}>{c.display_name}</option>)}
        </select>
        <label>Trigger words (one per line)<textarea name="trigger_words" rows={3} defaultValue={hook?.trigger_words.join("\n") ?? ""} /></label>
        <label for="outgoing-when">Trigger when</label>
        <select id="outgoing-when" name="trigger_when">
          <option value="0" selected={hook?.trigger_when !== 1}>First word matches a trigger word exactly</option>
          <option value="1" selected={hook?.trigger_when === 1}>First word starts with a trigger word</option>
        </select>
        <label>Callback URLs (one per line)<textarea name="callback_urls" rows={3} required defaultValue={hook?.callback_urls.join("\n") ?? ""} /></label>
        <div class="row dialog-actions"><button type="submit">{hook ? "Save" : "Add"}</button><button type="button" class="secondary" onClick={onClose}>Cancel</button></div>
      </form>
    </ConsoleDialog>
  )
}
