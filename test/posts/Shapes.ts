import type { Post, PostList } from "@mattermost/types/posts"
import { expect } from "vitest"
import { expectShape, Wire } from "../compat/Shapes.ts"

/** The posts, threads and reactions shapes, decoded with their wire Schemas (see test/compat/Shapes.ts). */
export { expectShape, Wire }

/** A post, its metadata included; answered as the official type the tests handle it as. */
export const expectPost = (value: unknown, what = "post"): Post => {
  expectShape(value, Wire.Post, what)
  return value as Post
}

/** A post list: every post of `order` in `posts`, each a post with its metadata. */
export const expectPostList = (value: unknown, what = "list"): PostList => {
  const list = expectShape(value, Wire.PostList, what)
  for (const id of list.order) expect(list.posts[id], `${what}.posts.${id}`).toBeDefined()
  return value as PostList
}
