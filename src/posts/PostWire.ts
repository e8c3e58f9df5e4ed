import type { Types } from "effect"
import type { Post } from "../../schemas/wire/Post.ts"
import type { PostAcknowledgement, PostEmoji, PostPriority } from "../../schemas/wire/PostMetadata.ts"
import type { PostList, PostSearchResults } from "../../schemas/wire/PostList.ts"
import type { Reaction } from "../../schemas/wire/Reaction.ts"
import type { FileInfo } from "../../schemas/wire/FileInfo.ts"
import { withoutIntegrations } from "../integrations/MessageActions.ts"
import { firstLink, type LinkPreview } from "../links/LinkPreviews.ts"
import type { UserRow } from "../users/UserRow.ts"
import { toWire as userToWire, type Viewer } from "../users/UserWire.ts"

/**
 * A post as the hydrating query returns it: the posts row, its thread's counters, the viewer's thread membership and
 * the metadata (reactions, custom emojis of those reactions, file infos, acknowledgements) aggregated as JSON. Bigints arrive as strings.
 */
export interface PostRow {
  readonly id: string
  readonly create_at: string | number
  readonly update_at: string | number
  readonly edit_at: string | number
  readonly delete_at: string | number
  readonly is_pinned: boolean
  readonly user_id: string
  readonly channel_id: string
  readonly root_id: string
  readonly original_id: string
  readonly message: string
  readonly type: string
  readonly props: Record<string, unknown>
  readonly hashtags: string
  readonly file_ids: ReadonlyArray<string>
  readonly pending_post_id: string
  readonly has_reactions: boolean
  /** The preview of the post's first link (src/links/), NULL while none was made; absent where a row is built in code. */
  readonly link_preview?: LinkPreview | null
  readonly reply_count: string | number
  readonly last_reply_at: string | number | null
  readonly participants: ReadonlyArray<string> | null
  readonly is_following: boolean | null
  /** These four are NULL when empty (the hydrating statement sends no '[]' for the driver to parse). */
  readonly reactions: ReadonlyArray<ReactionJson> | null
  readonly emojis: ReadonlyArray<typeof PostEmoji.Type> | null
  readonly files: ReadonlyArray<FileInfo> | null
  readonly acknowledgements: ReadonlyArray<AcknowledgementJson> | null
  /** Participant user rows in participation order; only when extended thread data was asked for. */
  readonly participant_users: ReadonlyArray<UserRow> | null
  /** PostPriorityMetadata, when the post carries a priority (PostPriority.ts). */
  readonly priority: typeof PostPriority.Type | null
}

export type ReactionJson = Reaction

/** PostAcknowledgement of @mattermost/types. */
export type AcknowledgementJson = PostAcknowledgement

/** How a list was asked for: collapsed threads add the thread fields Mattermost adds to root posts. */
export interface WireOptions {
  readonly viewer: Viewer
  readonly collapsedThreads: boolean
  readonly extended: boolean
}

/**
 * The stored preview while it still applies: not once the author removed it (`remove_link_preview`, as the apps set
 * it), nor once an edit changed the message's first link.
 */
const shownPreview = (row: PostRow): LinkPreview | undefined => {
  const preview = row.link_preview
  if (preview === null || preview === undefined || row.props?.remove_link_preview === "true") return undefined
  return preview.embeds.every((embed) => firstLink(row.message) === embed.url) ? preview : undefined
}

/**
 * The Post of @mattermost/types, with `metadata` always present: mobile reads reactions and files from it. A
 * precompiled encoder of the Post wire Schema: the channel page and POST /posts answer with it on the fast path
 * (test/compat/WireMappers.test.ts checks its output against the Schema).
 */
export const toWire = (row: PostRow, options: WireOptions): Post => {
  const fileIds = row.file_ids ?? []
  const preview = shownPreview(row)
  // Built in place, optional fields last, so the keys keep the order the byte-for-byte tests expect.
  const post: Types.Mutable<Post> = {
    id: row.id,
    create_at: Number(row.create_at),
    update_at: Number(row.update_at),
    edit_at: Number(row.edit_at),
    delete_at: Number(row.delete_at),
    is_pinned: row.is_pinned,
    user_id: row.user_id,
    channel_id: row.channel_id,
    root_id: row.root_id,
    original_id: row.original_id,
    message: row.message,
    type: row.type,
    props: withoutIntegrations(row.props ?? {}),
    hashtags: row.hashtags,
    pending_post_id: row.pending_post_id,
    reply_count: Number(row.reply_count ?? 0),
    has_reactions: row.has_reactions,
    metadata: {
      embeds: preview?.embeds ?? [],
      emojis: row.emojis ?? [],
      files: row.files ?? [],
      images: preview?.images ?? {},
      reactions: row.reactions ?? [],
      acknowledgements: row.acknowledgements ?? [],
      ...(row.priority === null || row.priority === undefined ? {} : { priority: row.priority })
    }
  }
  if (fileIds.length > 0) post.file_ids = fileIds
  if (options.collapsedThreads && row.root_id === "") {
    post.last_reply_at = Number(row.last_reply_at ?? 0)
    post.participants = options.extended
      ? (row.participant_users ?? []).map((u) => userToWire(u, options.viewer))
      : (row.participants ?? []).map((id) => ({ id }))
    post.is_following = row.is_following ?? false
  }
  return post
}

export type PostJson = Post

/** PostList / PaginatedPostList: `order` newest first, every post of `order` (and the roots of its replies) in `posts`. */
export const postList = (
  order: ReadonlyArray<string>,
  posts: ReadonlyArray<PostJson>,
  cursors: { readonly next_post_id?: string; readonly prev_post_id?: string; readonly has_next?: boolean } = {}
): PostList => ({
  order,
  posts: Object.fromEntries(posts.map((p) => [p.id, p])),
  next_post_id: cursors.next_post_id ?? "",
  prev_post_id: cursors.prev_post_id ?? "",
  has_next: cursors.has_next ?? false,
  first_inaccessible_post_time: 0
})

/** PostSearchResults: a page of results as a PostList, and the words each result matched (src/search/Matches.ts). */
export const postSearchResults = (list: PostList, matches: Readonly<Record<string, ReadonlyArray<string>>>): PostSearchResults => ({
  ...list,
  matches
})
