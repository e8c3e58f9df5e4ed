import { Clock, Effect, Layer, Schedule } from "effect"
import { Db } from "../../layers/Db.ts"
import { DomainEvent } from "../../schemas/Events.ts"
import { AppConfig } from "../Config.ts"
import { Access } from "../access/Access.ts"
import type { Caller } from "../auth/Authenticate.ts"
import { SystemBot } from "../bots/SystemBot.ts"
import { directName } from "../channels/ChannelWire.ts"
import { ensureDirect } from "../channels/DirectChannels.ts"
import { EventBus } from "../events/EventBus.ts"
import { actingAs } from "../integrations/ActingCaller.ts"
import { createPost } from "../posts/CreatePost.ts"
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
  const botId = yield* Effect.flatMap(SystemBot, (b) => b.userId)
  const config = yield* AppConfig
  const bus = yield* EventBus
  for (const reminder of due) {
    const sent = Effect.gen(function*() {
      const { channel, created } = yield* ensureDirect("D", directName(botId, reminder.user_id), "", botId, [...new Set([botId, reminder.user_id])])
      if (created) yield* bus.publish(DomainEvent.DirectAdded({ creatorId: botId, teammateId: reminder.user_id }), { channel_id: channel.id })
      const bot = actingAs({ id: botId, roles: "system_user", is_bot: true }, now)
      yield* createPost(bot, {
        channel_id: channel.id,
        message: reminderText(config.siteUrl, reminder.author_username, reminder.post_id),
        root_id: "",
        file_ids: [],
        props: {},
        pending_post_id: "",
        type: ""
      }, false, { post_id: reminder.post_id, username: reminder.author_username ?? "", target_time: Number(reminder.target_time) })
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
