import { Effect } from "effect"
import { DomainEvent } from "../../schemas/Events.ts"
import { Sessions } from "../auth/Sessions.ts"
import { EventBus } from "../events/EventBus.ts"
import { PreferenceRepo } from "../preferences/PreferenceRepo.ts"
import { Statuses, type StatusValue } from "../status/Statuses.ts"
import { clearCustomStatus, setCustomStatus } from "../users/CustomStatusRoutes.ts"
import { type CommandContext, ephemeral, goTo } from "./CommandContext.ts"

/** Built-ins about the user themself: statuses, custom status, previews, logout, and those only clients handle. */

const setStatus = (status: StatusValue, text: string) => (ctx: CommandContext) =>
  Effect.gen(function*() {
    yield* Effect.flatMap(Statuses, (s) => s.setManual(ctx.caller.userId, status, 0))
    return ephemeral(text)
  })

const DEFAULT_EMOJI = "speech_balloon"

/** `/status :emoji: text`, `/status text` (a speech balloon) or `/status clear`. */
const customStatus = (ctx: CommandContext, message: string) =>
  Effect.gen(function*() {
    const text = message.trim()
    if (text === "clear") {
      return yield* clearCustomStatus(ctx.caller.userId).pipe(
        Effect.as(ephemeral("Your status was cleared.")),
        Effect.orElseSucceed(() => ephemeral("Error clearing the status."))
      )
    }
    const emoji = /^:([a-z0-9_+-]+):/i.exec(text)
    const status = emoji === null
      ? { emoji: DEFAULT_EMOJI, text, duration: "" as const }
      : { emoji: emoji[1], text: text.slice(emoji[0].length).trim(), duration: "" as const }
    return yield* setCustomStatus(ctx.caller.userId, status).pipe(
      Effect.as(ephemeral(`Your status is set to “:${status.emoji}: ${status.text}”. You can change your status from the status popover in the channel sidebar header.`)),
      Effect.orElseSucceed(() => ephemeral("Error setting the status."))
    )
  })

/** /expand and /collapse: the display preference for link previews, announced as Mattermost does. */
const previews = (collapse: boolean) => (ctx: CommandContext) =>
  Effect.gen(function*() {
    const preference = { user_id: ctx.caller.userId, category: "display_settings", name: "collapse_previews", value: String(collapse) }
    yield* Effect.flatMap(PreferenceRepo, (p) => p.upsert([preference]))
    yield* (yield* EventBus).publish(DomainEvent.PreferenceChanged({ preference }), { user_id: ctx.caller.userId })
    return ephemeral(collapse ? "Image links now collapse by default" : "Image links now expand by default")
  })

/** Ends the session the command came from; the client follows goto_location to the login page. */
const logout = (ctx: CommandContext) =>
  Effect.gen(function*() {
    if (ctx.caller.session.id === "") return ephemeral("Failed to log user out.")
    yield* Effect.flatMap(Sessions, (s) => s.revoke(ctx.caller.session.id))
    return goTo("/login")
  })

const HELP_LINK = "https://mattermost.com/pl/help/"

const help = ephemeral(
  "Mattermost is an open source platform for secure communication, collaboration, and orchestration of work across tools and teams.\r\n" +
    "Mattermost contains two key tools:\r\n\r\n" +
    "**Channels** - Stay connected with your team via 1:1 and group messaging.\r\n" +
    "**[Playbooks](/playbooks)** - Build and configure repeatable processes to achieve specific and predictable outcomes.\r\n\r\n" +
    `[View documentation and guides](${HELP_LINK})`
)

export const statusCommands = {
  away: setStatus("away", "You are now away"),
  online: setStatus("online", "You are now online"),
  offline: setStatus("offline", "You are now offline"),
  dnd: setStatus("dnd", "Do Not Disturb is enabled. You will not receive desktop or mobile push notifications until Do Not Disturb is turned off."),
  status: customStatus,
  expand: previews(false),
  collapse: previews(true),
  logout,
  help: () => Effect.succeed(help),
  // The apps handle these themselves; a client that sends them gets what Mattermost's server answers.
  search: () => Effect.succeed(ephemeral("The search command is not supported on your device.")),
  settings: () => Effect.succeed(ephemeral("The settings command is not supported on your device.")),
  shortcuts: () => Effect.succeed(ephemeral("The shortcuts command is not supported on your device."))
}
