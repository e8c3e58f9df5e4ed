import { HttpRouter } from "@effect/platform"
import { Effect } from "effect"
import { Access } from "../access/Access.ts"
import { authed, CurrentCaller } from "../auth/Guards.ts"
import { forbidden, notFound } from "../http/ApiError.ts"
import * as Decode from "../http/Decode.ts"
import { withoutIntegrations } from "../integrations/MessageActions.ts"
import { respondWith, respondWithAll } from "../http/Respond.ts"
import { type PostEditVersion, PostEditVersion as PostEditVersionSchema, PostInfo } from "../../schemas/wire/PostHistory.ts"
import { type EditVersion, PostHistoryRepo } from "./PostHistoryRepo.ts"
import { PostParams } from "../../schemas/Params.ts"

/** GET /posts/{post_id}/edit_history and GET /posts/{post_id}/info (the permalink view). */


/** An earlier version as Mattermost shows it: a hidden (deleted) post whose original_id names the edited post. */
const versionToWire = (v: EditVersion): PostEditVersion => ({
  id: v.id,
  create_at: Number(v.create_at),
  update_at: Number(v.replaced_at),
  edit_at: Number(v.edit_at),
  delete_at: Number(v.replaced_at),
  is_pinned: false,
  user_id: v.user_id,
  channel_id: v.channel_id,
  root_id: v.root_id,
  original_id: v.original_id,
  message: v.message,
  type: v.type,
  props: withoutIntegrations(v.props ?? {}),
  hashtags: v.hashtags,
  pending_post_id: "",
  reply_count: 0,
  ...(v.file_ids.length > 0 ? { file_ids: v.file_ids } : {}),
  metadata: {}
})

/** Only the author sees the earlier versions of their post, as in Mattermost; none is a 404. */
const editHistory = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const { post_id } = yield* Decode.params(PostParams)
  const { postUserId } = yield* (yield* Access).post(caller, post_id, "read")
  if (postUserId !== caller.userId) {
    return yield* forbidden("api.post.get_edit_history_for_post.permission.app_error", "Only the author may see the edit history of a post.")
  }
  const versions = yield* (yield* PostHistoryRepo).versions(post_id)
  if (versions.length === 0) return yield* notFound("app.post.get_edit_history_for_post.app_error", "This post has no earlier version.")
  return yield* respondWithAll(PostEditVersionSchema, versions.map(versionToWire))
})

/**
 * Where a permalink leads, for someone who may not have joined the channel yet: any channel they are a member of;
 * a public channel of a team they belong to or may join (open team). Private channels, direct and group messages
 * need membership. System admins see everything.
 */
const info = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const { post_id } = yield* Decode.params(PostParams)
  const [place] = yield* (yield* PostHistoryRepo).place(post_id, caller.userId)
  if (place === undefined) return yield* notFound("app.post.get.app_error", "Post not found.")
  const allowed = caller.isSystemAdmin || place.has_joined_channel ||
    (place.channel_type === "O" && place.team_type !== null && (place.has_joined_team || place.team_allow_open_invite === true))
  if (!allowed) return yield* forbidden("app.post.get_post_info.forbidden.app_error", "You do not have the appropriate permissions for this post.")
  return yield* respondWith(PostInfo, {
    channel_id: place.channel_id,
    channel_type: place.channel_type,
    channel_display_name: place.channel_display_name,
    has_joined_channel: place.has_joined_channel,
    team_id: place.team_id,
    team_type: place.team_type ?? "",
    team_display_name: place.team_display_name ?? "",
    has_joined_team: place.has_joined_team
  })
})

export const routes = HttpRouter.empty.pipe(
  HttpRouter.get("/api/v4/posts/:post_id/edit_history", authed(editHistory)),
  HttpRouter.get("/api/v4/posts/:post_id/info", authed(info))
)
