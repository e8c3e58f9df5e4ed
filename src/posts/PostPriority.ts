import { Effect, Schema } from "effect"
import { forbidden, type Invalid, invalid } from "../../schemas/Errors.ts"
import { PriorityInput, type PriorityJson } from "../../schemas/PostPriority.ts"
import { siteSwitches } from "../system/ServerSettings.ts"

/**
 * Post priority (Mattermost's PostsPriority): a root post may be labelled important or urgent and ask readers to
 * acknowledge it, while ServiceSettings.PostPriority is on (Mattermost's default, and ours). Urgent posts count in
 * the mentioned members' urgent mention counts. Persistent notifications are refused: AllowPersistentNotifications
 * is off, as this server does not send them.
 */

/** `metadata` of a new post: only `priority` is read; the rest (embeds, files…) is the server's to fill. */
// Null is accepted for both, as some clients send it for "none".
export const MetadataInput = Schema.Struct({ priority: Schema.optional(Schema.NullOr(PriorityInput)) })

export interface Priority {
  readonly priority: "" | "important" | "urgent"
  readonly requested_ack: boolean
  readonly persistent_notifications: boolean
}

const LABELS = new Set(["", "important", "urgent"])

/**
 * The priority a new post will carry, or undefined when it asks for none (an empty label and no flags, which some
 * clients send with every post). 403 while the feature is off, 400 on a reply or an unknown label.
 */
export const isNone = (input: PriorityInput | null | undefined): input is null | undefined =>
  input === undefined || input === null || (input.priority === "" && !input.requested_ack && !input.persistent_notifications)

const invalidLabel = () => invalid("api.post.post_priority.invalid_priority.request_error", "The priority must be empty, important or urgent.")

export const checkPriority = (input: PriorityInput | null | undefined, rootId: string) =>
  Effect.gen(function*() {
    if (isNone(input)) return undefined
    if (!(yield* siteSwitches).postPriority) {
      return yield* forbidden("api.post.post_priority.priority_post_not_allowed_for_user.request_error", "Post priority is not enabled on this server.")
    }
    if (rootId !== "") {
      return yield* invalid("api.post.post_priority.priority_post_only_allowed_for_root_post.request_error", "Only root posts can have a priority.")
    }
    if (!LABELS.has(input.priority)) return yield* invalidLabel()
    if (input.persistent_notifications) {
      return yield* forbidden("api.post.post_priority.persistent_notifications_not_allowed.request_error", "Persistent notifications are not enabled on this server.")
    }
    return input as Priority
  })

/**
 * The priority a draft keeps (null for none). A draft is the client's scratch: only the label is checked here; the
 * rest is checked when it is posted or scheduled.
 */
export const draftPriority = (input: PriorityInput | null | undefined): Effect.Effect<PriorityJson | null, Invalid> =>
  isNone(input) ? Effect.succeed(null) : LABELS.has(input.priority) ? Effect.succeed(input) : Effect.fail(invalidLabel())
