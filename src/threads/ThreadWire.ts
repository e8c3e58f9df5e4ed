import type { Thread } from "../../schemas/wire/Thread.ts"
import type { PostJson } from "../posts/PostWire.ts"
import type { MembershipRow } from "./ThreadRepo.ts"

/**
 * The UserThread of @mattermost/types: `id` is the root post id, `post` the hydrated root (mobile reads
 * post.create_at), participants as the root post carries them (ids, or full users when extended).
 */
export const toWire = (row: MembershipRow, post: PostJson): Thread => ({
  id: row.post_id,
  reply_count: Number(row.reply_count),
  last_reply_at: Number(row.last_reply_at),
  last_viewed_at: Number(row.last_viewed),
  participants: post.participants ?? row.participants.map((id) => ({ id })),
  unread_replies: Number(row.unread_replies),
  unread_mentions: Number(row.unread_mentions),
  is_following: row.following,
  // Urgent when its root post is (posts/PostPriority.ts).
  is_urgent: post.metadata.priority?.priority === "urgent",
  post,
  delete_at: Number(row.delete_at)
})

export type UserThreadJson = Thread
