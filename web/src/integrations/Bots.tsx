import { useState } from "preact/hooks"
import { config } from "../app/state.ts"
import { act, api, notice, useLoad } from "../admin/state.ts"
import { ConsoleDialog, FormError, Outcome, TableWrap, useConfirm, useFormSubmit } from "../admin/ui.tsx"
import { Copyable } from "./ui.tsx"

interface Bot {
  user_id: string
  username: string
  display_name: string
  description: string
  delete_at: number
}

/**
 * Bot accounts (GET /api/v4/bots, disabled ones too): Add (POST /bots, while EnableBotAccountCreation is on),
 * Disable (after a confirmation) and Enable, and access tokens for a bot (POST /users/{bot}/tokens, while
 * EnableUserAccessTokens is on), each shown once with Copy: the server keeps no way to show it again.
 */
export default function Bots() {
  const bots = useLoad(() => api<Array<Bot>>("GET", "/api/v4/bots?include_deleted=true&per_page=200"))
  const [adding, setAdding] = useState(false)
  const [tokenFor, setTokenFor] = useState<Bot | null>(null)
  const canCreate = config.value.EnableBotAccountCreation === "true"
  const tokens = config.value.EnableUserAccessTokens === "true"
  const confirm = useConfirm(() => bots.reload())
  const askDisable = (b: Bot) => confirm.ask({
    title: `Disable ${name(b)}?`, action: "Disable",
    text: "Its access tokens stop working until it is enabled again.",
    run: () => api("POST", `/api/v4/bots/${b.user_id}/disable`), done: `${name(b)} disabled`
  })
  const rows = bots.data ?? []
  const name = (b: Bot) => b.display_name || b.username
  return (
    <section aria-labelledby="bots-title">
      <div class="row page-head">
        <h2 id="bots-title">Bot accounts</h2>
        {canCreate && <button type="button" onClick={() => setAdding(true)}>Add bot account</button>}
      </div>
      <p class="muted">
        Bots post through the API with their own access tokens.
        {!canCreate && " Creating bot accounts is switched off in the System Console (Integrations > Bot accounts)."}
        {!tokens && " Access tokens are switched off in the System Console (Integrations > Integration management)."}
      </p>
      <Outcome error={bots.error} />
      <TableWrap label="Bot accounts">
        <table>
          <thead><tr><th scope="col">Bot</th><th scope="col">State</th><th scope="col">Actions</th></tr></thead>
          <tbody>
            {rows.map((b) => (
              <tr key={b.user_id}>
                <td><strong>{name(b)}</strong> @{b.username}{b.description && <div class="muted small">{b.description}</div>}</td>
                <td>{b.delete_at ? "Disabled" : "Enabled"}</td>
                <td class="row">
                  {b.delete_at
                    ? <button type="button" class="secondary" aria-label={`Enable ${name(b)}`}
                      onClick={() => void act(() => api("POST", `/api/v4/bots/${b.user_id}/enable`), `${name(b)} enabled`, bots.reload)}>Enable</button>
                    : <>
                      {tokens && <button type="button" class="secondary" aria-label={`Create token for ${name(b)}`} onClick={() => setTokenFor(b)}>Create token</button>}
                      <button type="button" class="danger" aria-label={`Disable ${name(b)}`} onClick={() => askDisable(b)}>Disable</button>
                    </>}
                </td>
              </tr>
            ))}
            {bots.data && rows.length === 0 && <tr><td colSpan={3}>No bot accounts yet.</td></tr>}
          </tbody>
        </table>
      </TableWrap>
      {adding && <AddBot onClose={() => setAdding(false)} onAdded={() => { setAdding(false); void bots.reload() }} />}
      {tokenFor && <CreateToken bot={tokenFor} onClose={() => setTokenFor(null)} />}
      {confirm.dialog}
    </section>
  )
}

const AddBot = ({ onClose, onAdded }: { onClose: () => void; onAdded: () => void }) => {
  const { error, submit } = useFormSubmit(async (text) => {
    const bot = await api<Bot>("POST", "/api/v4/bots", { username: text("username").toLowerCase(), display_name: text("display_name"), description: text("description") })
    notice.value = `@${bot.username} created`
    onAdded()
  })
  return (
    <ConsoleDialog title="Add bot account" onClose={onClose}>
      <form onSubmit={submit}>
        <FormError error={error} />
        <label>Username<input name="username" required maxLength={22} autocomplete="off" /></label>
        <label>Display name<input name="display_name" maxLength={64} /></label>
        <label>Description<input name="description" maxLength={1024} /></label>
        <div class="row dialog-actions"><button type="submit">Add</button><button type="button" class="secondary" onClick={onClose}>Cancel</button></div>
      </form>
    </ConsoleDialog>
  )
}

const CreateToken = ({ bot, onClose }: { bot: Bot; onClose: () => void }) => {
  const [token, setToken] = useState("")
  const { error, submit } = useFormSubmit(async (text) => {
    const made = await api<{ token: string }>("POST", `/api/v4/users/${bot.user_id}/tokens`, { description: text("description") })
    setToken(made.token)
    notice.value = `Token created for @${bot.username}`
  })
  return (
    <ConsoleDialog title={`Create a token for @${bot.username}`} onClose={onClose}>
      {token
        ? <>
          <p>Copy the token now: it will not be shown again.</p>
          <p><Copyable value={token} label="Copy access token" /></p>
          <div class="row dialog-actions"><button type="button" onClick={onClose}>Done</button></div>
        </>
        : <form onSubmit={submit}>
          <FormError error={error} />
          <label>Token description<input name="description" required maxLength={255} /></label>
          <div class="row dialog-actions"><button type="submit">Create token</button><button type="button" class="secondary" onClick={onClose}>Cancel</button></div>
        </form>}
    </ConsoleDialog>
  )
}
