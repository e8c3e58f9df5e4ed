import type { Post, PostList, PostMetadata } from "@mattermost/types/posts"
import type { Reaction } from "@mattermost/types/reactions"
import type { UserThread, UserThreadList } from "@mattermost/types/threads"
import { expectShape, type Spec } from "../compat/Shapes.ts"

export { expectShape }

/** Specs of the posts, threads and reactions shapes of @mattermost/types (see test/compat/Shapes.ts). */
export const PostSpec: Spec<Post> = {
  id: "string",
  create_at: "number",
  update_at: "number",
  edit_at: "number",
  delete_at: "number",
  is_pinned: "boolean",
  user_id: "string",
  channel_id: "string",
  root_id: "string",
  original_id: "string",
  message: "string",
  type: "string",
  props: "object",
  hashtags: "string",
  pending_post_id: "string",
  reply_count: "number",
  file_ids: "optional",
  metadata: "object",
  failed: "omitted",
  user_activity_posts: "omitted",
  state: "omitted",
  filenames: "omitted",
  last_reply_at: "optional",
  participants: "optional",
  message_source: "omitted",
  is_following: "optional",
  exists: "omitted",
  remote_id: "optional"
}

export const MetadataSpec: Spec<PostMetadata> = {
  embeds: "array",
  emojis: "array",
  files: "array",
  images: "object",
  reactions: "array",
  priority: "optional",
  acknowledgements: "optional",
  translations: "omitted",
  expire_at: "omitted",
  recipients: "omitted",
  redacted_file_count: "omitted"
}

export const PostListSpec: Spec<PostList> = {
  order: "array",
  posts: "object",
  next_post_id: "string",
  prev_post_id: "string",
  first_inaccessible_post_time: "number"
}

export const ReactionSpec: Spec<Reaction> = { user_id: "string", post_id: "string", emoji_name: "string", create_at: "number" }

export const UserThreadSpec: Spec<UserThread> = {
  id: "string",
  reply_count: "number",
  last_reply_at: "number",
  last_viewed_at: "number",
  participants: "array",
  unread_replies: "number",
  unread_mentions: "number",
  is_following: "boolean",
  is_urgent: "boolean",
  type: "omitted",
  post: "object"
}

export const UserThreadListSpec: Spec<UserThreadList> = {
  total: "number",
  total_unread_threads: "number",
  total_unread_mentions: "number",
  total_unread_urgent_mentions: "number",
  threads: "array"
}

export const expectPost = (value: unknown, what = "post") => {
  const post = expectShape(value, PostSpec, what)
  expectShape(post.metadata, MetadataSpec, `${what}.metadata`)
  return post
}

export const expectPostList = (value: unknown, what = "list") => {
  const list = expectShape(value, PostListSpec, what)
  for (const id of list.order) expectPost(list.posts[id], `${what}.posts.${id}`)
  return list
}
