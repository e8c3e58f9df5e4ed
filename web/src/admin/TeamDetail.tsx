import type { Team } from "@mattermost/types/teams"
import { link } from "../app/router.ts"
import { Members } from "./Members.tsx"
import { act, api, consolePath, useLoad } from "./state.ts"
import { Outcome, useConfirm } from "./ui.tsx"


/**
 * A team's page: rename, description, who may join (open or invite only) and the email domains allowed, saved with
 * PUT /teams/{id}/patch and /privacy; the invite link and its regeneration; archive and restore; members and roles.
 */
export default function TeamDetail({ id }: { id: string }) {
  const team = useLoad(() => api<Team>("GET", `/api/v4/teams/${id}`), [id])
  const stats = useLoad(() => api<{ total_member_count: number; active_member_count: number }>("GET", `/api/v4/teams/${id}/stats`), [id])
  const confirm = useConfirm(() => team.reload())
  const t = team.data
  if (!t) return <section><h2>Team</h2><Outcome error={team.error} /></section>
  const inviteLink = `${location.origin}/signup_user_complete/?id=${t.invite_id}`
  const save = (e: Event) => {
    e.preventDefault()
    const form = e.currentTarget as HTMLFormElement
    if (!form.reportValidity()) return
    const d = new FormData(form)
    const open = d.get("open") === "on"
    void act(async () => {
      await api("PUT", `/api/v4/teams/${id}/patch`, {
        display_name: String(d.get("display_name")).trim(),
        description: String(d.get("description")).trim(),
        allowed_domains: String(d.get("allowed_domains")).split(/[\s,]+/).filter(Boolean).join(",")
      })
      if (open !== t.allow_open_invite) await api("PUT", `/api/v4/teams/${id}/privacy`, { privacy: open ? "O" : "I" })
    }, "Team saved", team.reload)
  }
  return (
    <section aria-labelledby="team-title">
      <p><a href={consolePath("user_management/teams")} onClick={link(consolePath("user_management/teams"))}>Teams</a> ›</p>
      <h2 id="team-title">{t.display_name}</h2>
      <Outcome />
      <p class="muted">/{t.name} · {t.delete_at ? "Archived" : "Active"} · {stats.data ? `${stats.data.active_member_count} active members` : "…"}</p>
      <form class="grid-form" onSubmit={save} key={`${t.update_at}`} aria-label="Team settings">
        <label>Team name<input name="display_name" required maxLength={64} defaultValue={t.display_name} /></label>
        <label>Description<textarea name="description" rows={2} maxLength={255} defaultValue={t.description} /></label>
        <label class="check"><input type="checkbox" name="open" defaultChecked={t.allow_open_invite} /> Anyone with an account on this server can join</label>
        <label>Allowed email domains<input name="allowed_domains" defaultValue={t.allowed_domains} aria-describedby="domains-help" /></label>
        <p id="domains-help" class="help muted">Only people whose email address is at one of these domains (comma-separated, e.g. example.com) can join; empty: anyone.</p>
        <button type="submit">Save team</button>
      </form>

      <h3>Invite link</h3>
      <p><code>{inviteLink}</code></p>
      <div class="row">
        <button type="button" class="secondary" onClick={() => void navigator.clipboard?.writeText(inviteLink)}>Copy invite link</button>
        <button type="button" class="danger" onClick={() => confirm.ask({
          title: "Regenerate the invite link", action: "Regenerate", done: "Invite link regenerated",
          text: "The current invite link will stop working; people will need the new one.",
          run: () => api("POST", `/api/v4/teams/${id}/regenerate_invite_id`)
        })}>Regenerate invite link</button>
      </div>

      <h3>Archive</h3>
      {t.delete_at
        ? <button type="button" class="secondary" onClick={() => void act(() => api("POST", `/api/v4/teams/${id}/restore`), `${t.display_name} restored`, team.reload)}>Restore team</button>
        : <button type="button" class="danger" onClick={() => confirm.ask({
            title: `Archive ${t.display_name}`, action: "Archive team", done: `${t.display_name} archived`,
            text: `${t.display_name} will be hidden from its members; its messages are kept and it can be restored.`,
            run: () => api("DELETE", `/api/v4/teams/${id}`)
          })}>Archive team</button>}

      <Members base={`/api/v4/teams/${id}`} scope="team" name={t.display_name} onChange={stats.reload} />
      {confirm.dialog}
    </section>
  )
}
