import type { UnsentMessageJson } from "../../schemas/Drafts.ts"
import type { PriorityJson } from "../../schemas/PostPriority.ts"

/** The columns drafts and scheduled_posts share, as PostgreSQL returns them (bigints as strings). */
export interface UnsentMessageRow {
  readonly user_id: string
  readonly channel_id: string
  readonly root_id: string
  readonly create_at: string
  readonly update_at: string
  readonly message: string
  readonly props: Record<string, unknown>
  readonly file_ids: ReadonlyArray<string>
  /** Migration 0132: null when the message has no priority. */
  readonly priority: PriorityJson | null
}

export const unsentToJson = (r: UnsentMessageRow): UnsentMessageJson => ({
  create_at: Number(r.create_at),
  update_at: Number(r.update_at),
  user_id: r.user_id,
  channel_id: r.channel_id,
  root_id: r.root_id,
  message: r.message,
  props: r.props ?? {},
  file_ids: r.file_ids ?? [],
  metadata: {},
  ...(r.priority === null || r.priority === undefined ? {} : { priority: r.priority })
})
