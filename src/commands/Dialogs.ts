import { Duration, Effect, Schema } from "effect"
import { OutboundHttp } from "../../layers/OutboundHttp.ts"
import { type Dialog, SubmitDialogAnswer, type SubmitDialogRequest } from "../../schemas/Command.ts"
import { integrationFailed, integrationTimeout, invalid, invalidParam } from "../../schemas/Errors.ts"
import { DomainEvent } from "../../schemas/Events.ts"
import { Access } from "../access/Access.ts"
import type { Caller } from "../auth/Authenticate.ts"
import { AppConfig } from "../Config.ts"
import { EventBus } from "../events/EventBus.ts"
import { verifyTriggerId } from "../integrations/TriggerId.ts"

/**
 * Interactive dialogs (Mattermost's OpenInteractiveDialog and SubmitInteractiveDialog). An integration opens one
 * with the trigger id it received (no session: the signed trigger id names the user, who gets the open_dialog
 * event); the user's client submits it, and the server posts the submission to the dialog's URL through the
 * SSRF-guarded client and returns the integration's answer (field errors) as it came.
 */

const TITLE_MAX = 24
const DISPLAY_NAME_MAX = 24
const NAME_MAX = 300
const ELEMENT_TYPES = new Set(["text", "textarea", "select", "bool", "radio", "date", "datetime"])

const invalidDialog = (detail: string) => invalid("api.context.invalid_body_param.app_error", `Invalid or missing dialog in request body: ${detail}.`)

/** Mattermost's Dialog.IsValid, on what clients need to render it. */
const problem = (dialog: Dialog): string | undefined => {
  if (dialog.title === "" || [...dialog.title].length > TITLE_MAX) return `the title must have 1 to ${TITLE_MAX} characters`
  if (dialog.icon_url !== undefined && dialog.icon_url !== "" && !/^https?:\/\//i.test(dialog.icon_url)) return "the icon URL must be an http(s) URL"
  const names = new Set<string>()
  for (const element of dialog.elements ?? []) {
    if (element.name === "" || element.name.length > NAME_MAX) return "every element needs a name"
    if (names.has(element.name)) return `duplicate element name ${element.name}`
    names.add(element.name)
    if (element.display_name === "" || [...element.display_name].length > DISPLAY_NAME_MAX) {
      return `element ${element.name} needs a display name of 1 to ${DISPLAY_NAME_MAX} characters`
    }
    if (!ELEMENT_TYPES.has(element.type)) return `element ${element.name} has an unknown type ${element.type}`
  }
  return undefined
}

export const open = (request: { trigger_id: string; url: string; dialog: Dialog }) =>
  Effect.gen(function*() {
    if (request.url === "") return yield* invalidParam("url")
    const { clientTriggerId, userId } = yield* verifyTriggerId(request.trigger_id).pipe(
      Effect.mapError((e) => invalid(e.id, e.message))
    )
    const reason = problem(request.dialog)
    if (reason !== undefined) return yield* invalidDialog(reason)
    const dialog = JSON.stringify({ ...request, trigger_id: clientTriggerId })
    yield* (yield* EventBus).publish(DomainEvent.OpenDialog({ dialog }), { user_id: userId })
  })

const decodeAnswer = Schema.decodeUnknownOption(SubmitDialogAnswer)

const SUBMIT_FAILED = "app.submit_interactive_dialog.app_error"

export const submit = (caller: Caller, request: SubmitDialogRequest) =>
  Effect.gen(function*() {
    if (request.url === "") return yield* invalidParam("url")
    yield* Effect.flatMap(Access, (a) => a.channel(caller, request.channel_id, "read"))
    if (request.team_id !== "") yield* Effect.flatMap(Access, (a) => a.team(caller, request.team_id))
    const { url, ...fields } = request
    const config = yield* AppConfig
    const answer = yield* Effect.flatMap(OutboundHttp, (http) =>
      http.request({
        url,
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json" },
        body: JSON.stringify({ ...fields, type: "dialog_submission", user_id: caller.userId }),
        timeout: Duration.millis(config.integrationTimeoutMs),
        maxBytes: 1024 * 1024
      })).pipe(
        Effect.mapError((e) =>
          (e._tag === "OutboundTimeout" ? integrationTimeout : integrationFailed)(SUBMIT_FAILED, "The integration could not take the dialog submission.", e.message)
        )
      )
    if (answer.status !== 200) {
      return yield* integrationFailed(SUBMIT_FAILED, "The integration could not take the dialog submission.", `status ${answer.status}`)
    }
    // An empty or unreadable answer is an empty one, as in Mattermost.
    let parsed: unknown = {}
    try {
      parsed = answer.body.trim() === "" ? {} : JSON.parse(answer.body)
    } catch {
      parsed = {}
    }
    const decoded = decodeAnswer(parsed)
    return decoded._tag === "Some" ? decoded.value : {}
  })
