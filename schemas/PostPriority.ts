import { Schema } from "effect"

/**
 * PostPriorityMetadata of @mattermost/types as clients send it: in a new post's `metadata.priority`, and as the
 * `priority` of a draft or a scheduled post. The label is checked by the service (posts/PostPriority.ts).
 */
export const PriorityInput = Schema.Struct({
  priority: Schema.optionalWith(Schema.String, { default: () => "" }),
  requested_ack: Schema.optionalWith(Schema.Boolean, { default: () => false }),
  persistent_notifications: Schema.optionalWith(Schema.Boolean, { default: () => false })
})
export type PriorityInput = typeof PriorityInput.Type

/** As stored and returned: PostPriorityMetadata with every field present. */
export interface PriorityJson {
  readonly priority: string
  readonly requested_ack: boolean
  readonly persistent_notifications: boolean
}
