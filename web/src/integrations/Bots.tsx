import { useEffect, useState } from "preact/hooks"
import { client } from "../app/api.ts"
import { config, me } from "../app/state.ts"
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
 * EnableUserAccessTokens is on), each shown once with Copy: the server keeps no way to show it again. Add also takes
 * Mattermost's "Bot icon" (uploaded as the bot user's picture once the bot exists) and, for a system admin, its
 * "Role" (the bot user's system roles; PUT /users/{id}/roles is refused to anybody else).
 */
export default function Bots() {
  const bots = useLoad(() => api<Array<Bot>>("GET", "/api/v4/bots?include_deleted=true&per_page=200"))
  const [adding, setAdding] = useState(false)
  const [tokenFor, setTokenFor] = useState<Bot | null>(null)
  // The pictures' URLs change with each load, so a bot's new icon shows at once (the list has no picture time).
  const [loadedAt, setLoadedAt] = useState(0)
  useEffect(() => setLoadedAt(Date.now()), [bots.data])
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
                <td>
                  <div class="row bot-name">
                    <img class="bot-icon" src={`/api/v4/users/${b.user_id}/image?_=${loadedAt}`} alt="" width={32} height={32} loading="lazy" />
                    <div><strong>{name(b)}</strong> @{b.username}{b.description && <div class="muted small">{b.description}</div>}</div>
                  </div>
                </td>
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
      {adding && <AddBot onClose={() => setAdding(false)} onAdded={() => { setAdding(false); void bots.reload() }} onPartly={() => void bots.reload()} />}
      {tokenFor && <CreateToken bot={tokenFor} onClose={() => setTokenFor(null)} />}
      {confirm.dialog}
    </section>
  )
}

const AddBot = ({ onClose, onAdded, onPartly }: { onClose: () => void; onAdded: () => void; onPartly: () => void }) => {
  const [preview, setPreview] = useState("")
  useEffect(() => () => { if (preview) URL.revokeObjectURL(preview) }, [preview])
  const admin = (me.value?.roles ?? "").split(" ").includes("system_admin")
  const { error, setError, submit } = useFormSubmit(async (text, data) => {
    const bot = await api<Bot>("POST", "/api/v4/bots", { username: text("username").toLowerCase(), display_name: text("display_name"), description: text("description") })
    // The bot exists now: a refused picture or role must not hide that, so the list reloads and the dialog says what failed.
    const icon = data.get("icon")
    const failed: Array<string> = []
    if (icon instanceof File && icon.size > 0) {
      await client.uploadProfileImage(bot.user_id, icon).catch((e: unknown) => failed.push(`the icon (${errorText(e)})`))
    }
    if (text("role") === "system_admin") {
      await api("PUT", `/api/v4/users/${bot.user_id}/roles`, { roles: "system_user system_admin" }).catch((e: unknown) => failed.push(`the role (${errorText(e)})`))
    }
    if (failed.length > 0) {
      setError(`@${bot.username} was created, but ${failed.join(" and ")} could not be set.`)
      onPartly()
      return
    }
    notice.value = `@${bot.username} created`
    onAdded()
  })
  const pick = (e: Event) => {
    const file = (e.currentTarget as HTMLInputElement).files?.[0]
    setPreview(file ? URL.createObjectURL(file) : "")
  }
  return (
    <ConsoleDialog title="Add bot account" onClose={onClose}>
      <form onSubmit={submit}>
        <FormError error={error} />
        <label>Username<input name="username" required maxLength={22} autocomplete="off" /></label>
        <label>Display name<input name="display_name" maxLength={64} /></label>
        <label>Description<input name="description" maxLength={1024} /></label>
        <div class="row bot-name">
          {preview && <img class="bot-icon large" src={preview} alt="Bot icon preview" width={64} height={64} />}
          <label>Bot icon (PNG or JPEG)<input name="icon" type="file" accept="image/png,image/jpeg" onChange={pick} /></label>
        </div>
        {admin && (
          <label>Role
            <select name="role" defaultValue="member">
              <option value="member">Member</option>
              <option value="system_admin">System Admin</option>
            </select>
          </label>
        )}
        <div class="row dialog-actions"><button type="submit">Add</button><button type="button" class="secondary" onClick={onClose}>Cancel</button></div>
      </form>
    </ConsoleDialog>
  )
}

const errorText = (e: unknown) => (e instanceof Error || (e && typeof e === "object" && "message" in e) ? String((e as { message: unknown }).message) : "failed")

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
