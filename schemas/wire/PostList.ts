import { Schema } from "effect"
import { Post } from "./Post.ts"

/**
 * The PostList / PaginatedPostList of @mattermost/types: `order` newest first, every post of `order` (and the roots
 * of its replies) in `posts`.
 */
export const PostList = Schema.Struct({
  order: Schema.Array(Schema.String),
  posts: Schema.Record({ key: Schema.String, value: Post }),
  next_post_id: Schema.String,
  prev_post_id: Schema.String,
  has_next: Schema.Boolean,
  first_inaccessible_post_time: Schema.Number
})
export type PostList = typeof PostList.Type

/**
 * The PostSearchResults of @mattermost/types: a page of results (newest first, `has_next` when more follow) and, for
 * each result, the words of the search its message contains, which the apps highlight.
 */
export const PostSearchResults = Schema.Struct({
  ...PostList.fields,
  matches: Schema.Record({ key: Schema.String, value: Schema.Array(Schema.String) })
})
export type PostSearchResults = typeof PostSearchResults.Type
