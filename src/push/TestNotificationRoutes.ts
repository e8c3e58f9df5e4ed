import { HttpRouter } from "@effect/platform"
import { Effect } from "effect"
import { newId } from "../../layers/Crypto.ts"
import { authed, CurrentCaller } from "../auth/Guards.ts"
import { messageFromSystemBot } from "../bots/SystemBotMessage.ts"
import { ok } from "../http/Respond.ts"

/** The post prop that makes a message push go out whatever the recipient's settings and status (Mattermost's). */
export const FORCE_NOTIFICATION = "force_notification"

export const TEST_NOTIFICATION_MESSAGE =
  "This is a test notification. If it reached you, notifications from this server work on this device."

/**
 * POST /api/v4/notifications/test (Settings > Notifications > "Send a test notification" in Mattermost's apps): the
 * system bot sends the caller a direct message marked to be pushed whatever their notification settings and status,
 * as Mattermost does, so that an online user trying it still gets the push on their devices. Only the server sets the
 * mark: CreatePost removes it from what clients send.
 */
const sendTest = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  yield* messageFromSystemBot(caller.userId, TEST_NOTIFICATION_MESSAGE, { [FORCE_NOTIFICATION]: newId() })
  return ok()
})

export const routes = HttpRouter.empty.pipe(
  HttpRouter.post("/api/v4/notifications/test", authed(sendTest))
)
