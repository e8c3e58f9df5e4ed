import { Clock, Effect } from "effect"
import { newId } from "../../layers/Crypto.ts"
import { DomainEvent } from "../../schemas/Events.ts"
import { EventBus } from "../events/EventBus.ts"

/**
 * A post shown to one user only and never stored (Mattermost's SendEphemeralPost): the `ephemeral_message` event to
 * that user's sockets, carrying a whole Post of type system_ephemeral.
 */
export interface EphemeralInput {
  readonly userId: string
  readonly channelId: string
  readonly rootId: string
  readonly message: string
  readonly props: Record<string, unknown>
  /** Defaults to now. */
  readonly createAt?: number
  /** Defaults to a new id; a caller that refers to the post inside its props picks it first. */
  readonly id?: string
}

export const publishEphemeral = (input: EphemeralInput) =>
  Effect.gen(function*() {
    const now = yield* Clock.currentTimeMillis
    const post = {
      id: input.id ?? newId(),
      create_at: input.createAt ?? now,
      update_at: now,
      edit_at: 0,
      delete_at: 0,
      is_pinned: false,
      user_id: input.userId,
      channel_id: input.channelId,
      root_id: input.rootId,
      original_id: "",
      message: input.message,
      type: "system_ephemeral",
      props: input.props,
      hashtags: "",
      pending_post_id: "",
      reply_count: 0,
      metadata: { embeds: [], emojis: [], files: [], images: {}, reactions: [] }
    }
    yield* (yield* EventBus).publish(DomainEvent.EphemeralMessage({ post }), { user_id: input.userId })
    return post
  })
