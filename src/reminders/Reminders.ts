import { Clock, Effect, Layer, Schedule } from "effect"
import { Db } from "../../layers/Db.ts"
import { AppConfig } from "../Config.ts"
import { Access } from "../access/Access.ts"
import type { Caller } from "../auth/Authenticate.ts"
import { messageFromSystemBot } from "../bots/SystemBotMessage.ts"
import { makeReminderRepo } from "./ReminderRepo.ts"

/**
 * "Remind me" on a post: when the time comes, the system bot sends the user a direct message pointing at the post.
 * Every node runs the job; a due reminder is claimed by deleting its row, so exactly one node sends it. If sending
 * fails the row is put back and tried again on a later run.
 */

/** How often due reminders are looked for: a reminder arrives within this of its time. */
export const CHECK_EVERY = "5 seconds"
const BATCH = 100

/** The caller must be the user, and able to read the post. */
export const setReminder = (caller: Caller, userId: string, postId: string, targetTime: number) =>
  Effect.gen(function*() {
    yield* Effect.flatMap(Access, (a) => a.post(caller, postId, "read"))
    yield* makeReminderRepo(yield* Db).upsert(postId, userId, targetTime)
  })

const reminderText = (siteUrl: string, author: string | null, postId: string) =>
  `Hi there, here's your reminder about this message${author === null ? "" : ` from @${author}`}: ${siteUrl}/_redirect/pl/${postId}`

export const sendDue = Effect.gen(function*() {
  const db = yield* Db
  const reminders = makeReminderRepo(db)
  const now = yield* Clock.currentTimeMillis
  const due = yield* reminders.claimDue(Math.floor(now / 1000), BATCH)
  if (due.length === 0) return
  const config = yield* AppConfig
  for (const reminder of due) {
    const sent = messageFromSystemBot(reminder.user_id, reminderText(config.siteUrl, reminder.author_username, reminder.post_id), {
      post_id: reminder.post_id,
      username: reminder.author_username ?? "",
      target_time: Number(reminder.target_time)
    })
    yield* sent.pipe(
      Effect.catchAllCause((cause) =>
        Effect.logWarning("reminder not sent; retrying later", cause).pipe(
          Effect.zipRight(reminders.restore(reminder.post_id, reminder.user_id, Number(reminder.target_time)).pipe(Effect.ignore))
        ))
    )
  }
})

export const layer = Layer.scopedDiscard(
  Effect.forkScoped(
    sendDue.pipe(
      Effect.catchAllCause((cause) => Effect.logWarning("reminder job failed", cause)),
      Effect.repeat(Schedule.spaced(CHECK_EVERY))
    )
  )
)
