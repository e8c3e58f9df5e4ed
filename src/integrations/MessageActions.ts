import { newId } from "../../layers/Crypto.ts"

/**
 * Interactive message actions: the buttons and selects of a post's Slack attachments
 * (props.attachments[].actions[], each with `integration: {url, context}`). As in Mattermost, the integration stays in
 * the stored props, for the server to call when the action is clicked, and is taken out of every post a client gets
 * (Post.StripActionIntegrations): the URL and context are the integration's secrets. Clients need only the action's id,
 * which the server gives each action that has none when the post is written.
 */

type Props = Readonly<Record<string, unknown>>
type Json = Record<string, unknown>

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v)

/** Rewrites each action object of the props' attachments; props without actions are returned as they are. */
const mapActions = (props: Props, f: (action: Json) => Json): Props => {
  const attachments = props.attachments
  if (!Array.isArray(attachments) || !attachments.some((a) => isObject(a) && Array.isArray(a.actions))) return props
  return {
    ...props,
    attachments: attachments.map((a) =>
      isObject(a) && Array.isArray(a.actions) ? { ...a, actions: a.actions.map((action) => isObject(action) ? f(action) : action) } : a
    )
  }
}

/** Mattermost's Post.GenerateActionIds: every action gets an id, unless its integration named it. */
export const withActionIds = (props: Props): Props =>
  mapActions(props, (action) => typeof action.id === "string" && action.id !== "" ? action : { ...action, id: newId() })

/** The props as clients see them: no action's integration; `cookieOf` may give an action the cookie to send back. */
export const withoutIntegrations = (props: Props, cookieOf?: (actionId: string) => string | undefined): Props =>
  mapActions(props, (action) => {
    const cookie = cookieOf?.(String(action.id))
    if (!("integration" in action) && cookie === undefined) return action
    const { integration: _secret, ...seen } = action
    return cookie === undefined ? seen : { ...seen, cookie }
  })

export interface StoredAction {
  readonly id: string
  readonly type: string
  readonly dataSource: string
  readonly url: string
  readonly context: Json
}

/** Every action of the props that has an integration URL to call. */
export const actionsOf = (props: Props): ReadonlyArray<StoredAction> => {
  const found: Array<StoredAction> = []
  const attachments = Array.isArray(props.attachments) ? props.attachments : []
  for (const attachment of attachments) {
    const actions: ReadonlyArray<unknown> = isObject(attachment) && Array.isArray(attachment.actions) ? attachment.actions : []
    for (const action of actions) {
      if (!isObject(action) || typeof action.id !== "string") continue
      const integration = action.integration
      if (!isObject(integration) || typeof integration.url !== "string" || integration.url === "") continue
      found.push({
        id: action.id,
        type: typeof action.type === "string" ? action.type : "",
        dataSource: typeof action.data_source === "string" ? action.data_source : "",
        url: integration.url,
        context: isObject(integration.context) ? integration.context : {}
      })
    }
  }
  return found
}

/** An action of the stored props by id, with what calling its integration needs; none without an integration URL. */
export const findAction = (props: Props, id: string): StoredAction | undefined => actionsOf(props).find((a) => a.id === id)
