import { Clock, Effect, Layer, Queue, Schedule } from "effect"
import { Db } from "../../layers/Db.ts"
import { Mailer } from "../../layers/Mailer.ts"
import type { EventOf } from "../../schemas/Events.ts"
import { AppConfig } from "../Config.ts"
import { EventBus } from "../events/EventBus.ts"
import { siteName } from "../system/ServerSettings.ts"
import { intervalSeconds, wantsEmail, waitingVerdict } from "./EmailDecide.ts"
import { makeEmailNotificationRepo, type MailedPost } from "./EmailNotificationRepo.ts"
import { notificationDigest } from "./Templates.ts"

/**
 * Mention and direct-message emails for people who are away. Two halves:
 * - the node that wrote a post reads its own `posted` event (off the request path, through a bounded queue) and
 *   records one waiting notification per recipient who should be mailed (EmailDecide.ts), using the mentions the
 *   post was written with (posts/Mentions.ts, carried in the event) rather than finding them again;
 * - every node runs the batching job: a user's waiting notifications go in one mail once their interval has passed
 *   since the first, or are dropped when the user has been active since. Claiming deletes the rows with row locks,
 *   so each notification is mailed by exactly one node.
 * Nothing runs when no SMTP server is configured.
 */

const QUEUE_CAPACITY = 1_000
/** Users mailed per run; more wait for the next run. */
const USERS_PER_RUN = 500

/** Records the waiting notifications of one `posted` event (the typed event: the post object, no JSON to parse). */
const record = ({ mentions: mentioned, post }: EventOf<"Posted">) =>
  Effect.gen(function*() {
    if (post.type.startsWith("system_")) return
    if (mentioned.length === 0 && post.root_id === "") return
    const repo = makeEmailNotificationRepo(yield* Db)
    const candidates = yield* repo.candidates({ channelId: post.channel_id, authorId: post.user_id, rootId: post.root_id, mentioned })
    const chosen = candidates.filter((c) => wantsEmail(c, post.root_id !== "")).map((c) => c.user_id)
    yield* repo.enqueue(chosen, post.id, post.create_at)
  })

const linkOf = (siteUrl: string, row: MailedPost) => {
  const team = row.team_name !== null && row.team_name !== "" ? row.team_name : row.recipient_team
  return team === null ? `${siteUrl}/_redirect/pl/${row.post_id}` : `${siteUrl}/${team}/pl/${row.post_id}`
}

/** One run of the batching job: drops what was seen, mails what is due. */
export const sendDue = Effect.gen(function*() {
  const mailer = yield* Mailer
  if (!mailer.enabled) return
  const repo = makeEmailNotificationRepo(yield* Db)
  const now = yield* Clock.currentTimeMillis
  const waiting = yield* repo.waiting()
  const verdicts = waiting.map((w) => ({
    userId: w.user_id,
    verdict: waitingVerdict({
      firstAt: Number(w.first_at),
      status: w.status,
      lastActivityAt: Number(w.last_activity_at),
      interval: intervalSeconds(w.email_interval)
    }, now)
  }))
  yield* repo.discard(verdicts.filter((v) => v.verdict === "discard").map((v) => v.userId), now)
  const ready = verdicts.filter((v) => v.verdict === "send").map((v) => v.userId).slice(0, USERS_PER_RUN)
  if (ready.length === 0) return
  const claimed = yield* repo.claim(ready)
  if (claimed.length === 0) return
  const config = yield* AppConfig
  const site = yield* siteName
  const byUser = new Map<string, Array<MailedPost>>()
  for (const row of claimed) byUser.set(row.user_id, [...(byUser.get(row.user_id) ?? []), row])
  for (const rows of byUser.values()) {
    const message = notificationDigest({
      to: rows[0].email,
      siteName: site,
      settingsHint: "You get these mails while you are away. Change how often in Settings > Notifications > Email notifications.",
      posts: rows.map((row) => ({
        sender: row.sender,
        channel: row.channel_name,
        channelType: row.channel_type,
        createAt: Number(row.create_at),
        message: row.message,
        link: linkOf(config.siteUrl, row)
      }))
    })
    // A full queue drops the mail: it is a notification, and the posts stay unread in the app.
    yield* mailer.enqueue(message).pipe(Effect.catchAll(() => Effect.logWarning("notification mail not queued")))
  }
})

export const layer = Layer.scopedDiscard(
  Effect.gen(function*() {
    const mailer = yield* Mailer
    if (!mailer.enabled) return
    const config = yield* AppConfig
    const bus = yield* EventBus
    const posted = yield* Effect.acquireRelease(Queue.dropping<EventOf<"Posted">>(QUEUE_CAPACITY), Queue.shutdown)
    // Synchronously in publish: a filter and an offer (issue 10: a Stream per subscriber cost a tenth of a post).
    yield* bus.onLocal(({ domain }) => {
      if (domain?._tag === "Posted") posted.unsafeOffer(domain)
    })
    yield* Effect.forkScoped(Effect.forever(
      Effect.flatMap(Queue.take(posted), (event) =>
        record(event).pipe(Effect.catchAllCause((cause) => Effect.logWarning("notification email not recorded", cause))))
    ))
    yield* Effect.forkScoped(
      sendDue.pipe(
        Effect.catchAllCause((cause) => Effect.logWarning("notification email job failed", cause)),
        Effect.repeat(Schedule.spaced(`${config.emailBatchingCheckMs} millis`))
      )
    )
  })
)
