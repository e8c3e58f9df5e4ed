import type { Team } from "@mattermost/types/teams"
import { useState } from "preact/hooks"
import { api, notice, useLoad } from "../admin/state.ts"
import { ConsoleDialog, FormError, Outcome, TableWrap, useConfirm, useFormSubmit } from "../admin/ui.tsx"
import { Copyable } from "./ui.tsx"

interface Command {
  id: string
  token: string
  trigger: string
  method: "P" | "G"
  url: string
  display_name: string
  description: string
  auto_complete: boolean
  auto_complete_hint: string
  auto_complete_desc: string
  username: string
  icon_url: string
}

/**
 * The team's custom slash commands (GET /api/v4/commands?team_id&custom_only=true): trigger, request URL and method,
 * autocomplete with its hint and description, and the token the integration checks requests with (shown, with Copy
 * and Regenerate). Add (POST), Edit (PUT), Delete after a confirmation.
 */
export default function Commands({ team }: { team: Team }) {
  const commands = useLoad(() => api<Array<Command>>("GET", `/api/v4/commands?team_id=${team.id}&custom_only=true`), [team.id])
  const [editing, setEditing] = useState<Command | "new" | null>(null)
  const [made, setMade] = useState<Command | null>(null)
  const confirm = useConfirm(() => commands.reload())
  const askRegenerate = (c: Command) => confirm.ask({
    title: `Regenerate the token of ${name(c)}?`, action: "Regenerate",
    text: "The integration must be given the new token: requests with the old one are no longer from this server.",
    run: () => api("PUT", `/api/v4/commands/${c.id}/regen_token`), done: `Token of ${name(c)} regenerated`
  })
  const askDelete = (c: Command) => confirm.ask({
    title: `Delete ${name(c)}?`, action: "Delete",
    text: `/${c.trigger} will no longer work. This cannot be undone.`,
    run: () => api("DELETE", `/api/v4/commands/${c.id}`), done: `${name(c)} deleted`
  })
  const rows = commands.data ?? []
  const name = (c: Command) => c.display_name || `/${c.trigger}`
  return (
    <section aria-labelledby="commands-title">
      <div class="row page-head">
        <h2 id="commands-title">Slash commands</h2>
        <button type="button" onClick={() => setEditing("new")}>Add slash command</button>
      </div>
      <p class="muted">A slash command sends what follows its trigger to an integration's URL, which answers with the message to post.</p>
      <Outcome error={commands.error} />
      <TableWrap label="Slash commands">
        <table>
          <thead><tr><th scope="col">Command</th><th scope="col">Request</th><th scope="col">Token</th><th scope="col">Actions</th></tr></thead>
          <tbody>
            {rows.map((c) => (
              <tr key={c.id}>
                <td><strong>{name(c)}</strong> <code>/{c.trigger}</code>{c.description && <div class="muted small">{c.description}</div>}
                  {c.auto_complete && <div class="muted small">Autocomplete: /{c.trigger} {c.auto_complete_hint}</div>}</td>
                <td>{c.method === "G" ? "GET" : "POST"} <code>{c.url}</code></td>
                <td><Copyable value={c.token} label={`Copy token of ${name(c)}`} /></td>
                <td class="row">
                  <button type="button" class="secondary" aria-label={`Regenerate token of ${name(c)}`} onClick={() => askRegenerate(c)}>Regenerate token</button>
                  <button type="button" class="secondary" aria-label={`Edit ${name(c)}`} onClick={() => setEditing(c)}>Edit</button>
                  <button type="button" class="danger" aria-label={`Delete ${name(c)}`} onClick={() => askDelete(c)}>Delete</button>
                </td>
              </tr>
            ))}
            {commands.data && rows.length === 0 && <tr><td colSpan={4}>No slash commands yet.</td></tr>}
          </tbody>
        </table>
      </TableWrap>
      {editing && (
        <CommandForm team={team} command={editing === "new" ? null : editing} onClose={() => setEditing(null)}
          onSaved={(c, created) => { setEditing(null); void commands.reload(); if (created) setMade(c) }} />
      )}
      {made && (
        <ConsoleDialog title="Slash command created" onClose={() => setMade(null)}>
          <p>The integration at {made.url} receives this token with every request: check it to know the request is from this server.</p>
          <p><Copyable value={made.token} label="Copy command token" /></p>
          <div class="row dialog-actions"><button type="button" onClick={() => setMade(null)}>Done</button></div>
        </ConsoleDialog>
      )}
      {confirm.dialog}
    </section>
  )
}

const CommandForm = ({ team, command, onClose, onSaved }: {
  team: Team
  command: Command | null
  onClose: () => void
  onSaved: (command: Command, created: boolean) => void
}) => {
  const [auto, setAuto] = useState(command?.auto_complete ?? false)
  const { error, submit } = useFormSubmit(async (text) => {
    const body = {
      team_id: team.id,
      display_name: text("display_name"),
      description: text("description"),
      trigger: text("trigger").replace(/^\//, ""),
      url: text("url"),
      method: text("method") === "G" ? "G" : "P",
      auto_complete: auto,
      auto_complete_hint: auto ? text("auto_complete_hint") : command?.auto_complete_hint ?? "",
      auto_complete_desc: auto ? text("auto_complete_desc") : command?.auto_complete_desc ?? "",
      username: command?.username ?? "",
      icon_url: command?.icon_url ?? ""
    }
    const saved = command
      ? await api<Command>("PUT", `/api/v4/commands/${command.id}`, { ...command, ...body })
      : await api<Command>("POST", "/api/v4/commands", body)
    notice.value = `/${saved.trigger} ${command ? "saved" : "created"}`
    onSaved(saved, !command)
  })
  return (
    <ConsoleDialog title={command ? "Edit slash command" : "Add slash command"} onClose={onClose}>
      <form onSubmit={submit}>
        <FormError error={error} />
        <label>Title<input name="display_name" maxLength={64} defaultValue={command?.display_name ?? ""} /></label>
        <label>Description<input name="description" maxLength={128} defaultValue={command?.description ?? ""} /></label>
        <label>Command trigger word<input name="trigger" required maxLength={128} defaultValue={command?.trigger ?? ""} aria-describedby="trigger-help" /></label>
        <p id="trigger-help" class="help muted">One word without spaces, not starting with a slash, and not a built-in command (such as away or join).</p>
        <label>Request URL<input name="url" type="url" required maxLength={1024} defaultValue={command?.url ?? ""} /></label>
        <label for="command-method">Request method</label>
        <select id="command-method" name="method">
          <option value="P" selected={command?.method !== "G"}>POST</option>
          <option value="G" selected={command?.method === "G"}>GET</option>
        </select>
        <label class="check"><input type="checkbox" checked={auto} onChange={(e) => setAuto(e.currentTarget.checked)} /> Autocomplete</label>
        {auto && (
          <>
            <label>Autocomplete hint<input name="auto_complete_hint" maxLength={1024} defaultValue={command?.auto_complete_hint ?? ""} /></label>
            <label>Autocomplete description<input name="auto_complete_desc" maxLength={1024} defaultValue={command?.auto_complete_desc ?? ""} /></label>
          </>
        )}
        <div class="row dialog-actions"><button type="submit">{command ? "Save" : "Add"}</button><button type="button" class="secondary" onClick={onClose}>Cancel</button></div>
      </form>
    </ConsoleDialog>
  )
}
