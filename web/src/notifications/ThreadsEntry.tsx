import { link } from "../app/router.ts"
import { Icon } from "../ui/Icon.tsx"
import { threadTotals } from "./threads.ts"

/**
 * The sidebar's Threads entry, marked as Mattermost marks it: bold when a followed thread has unread replies, and the
 * count of unread mentions in them as a badge; its name says so too ("Threads, 2 mentions" / "Threads, unread").
 */
export const ThreadsEntry = ({ teamName, teamId, open }: { teamName: string; teamId: string | undefined; open: boolean }) => {
  const totals = threadTotals.value.teamId === teamId ? threadTotals.value : { unreadThreads: 0, unreadMentions: 0 }
  const mentions = totals.unreadMentions
  const unread = totals.unreadThreads > 0 || mentions > 0
  const name = `Threads${mentions ? `, ${mentions} mention${mentions > 1 ? "s" : ""}` : unread ? ", unread" : ""}`
  return (
    <a class={`threads-link${open ? " active" : ""}${unread ? " unread" : ""}`} href={`/${teamName}/threads`} onClick={link(`/${teamName}/threads`)}
      aria-current={open ? "page" : undefined} aria-label={name}>
      <span class="glyph" aria-hidden="true"><Icon name="threads" /></span> <span class="label">Threads</span>
      {mentions > 0 ? <span class="badge" aria-hidden="true" data-count={mentions} /> : unread ? <span class="dot" aria-hidden="true" /> : null}
    </a>
  )
}
