import { Effect } from "effect"
import { Db } from "../../layers/Db.ts"
import { IdRow, rows } from "../../layers/Rows.ts"
import type { LinkPreview } from "./LinkPreviews.ts"

const Updated = rows("LinkPreviewRepo setLinkPreview", IdRow)

/**
 * Stores a post's preview of `url`, unless the post was deleted, already has the preview of that link, no longer
 * contains it (edited meanwhile), or its author removed the preview (`remove_link_preview`, which the apps set by
 * editing the post's props). An edit that changed the first link gets the new link's preview in place of the old.
 * update_at moves on, so that clients holding the post take the post_edited that follows (they keep the newer of two
 * versions) and `since` lists return it. True when the post was updated.
 */
export const setLinkPreview = (postId: string, url: string, preview: LinkPreview, now: number) =>
  Effect.gen(function*() {
    const db = yield* Db
    const updated = yield* db.execute(db.sql`
      UPDATE posts SET link_preview = ${JSON.stringify(preview)}::jsonb, update_at = GREATEST(update_at + 1, ${now})
      WHERE id = ${postId} AND delete_at = 0 AND strpos(message, ${url}) > 0
        AND (link_preview IS NULL OR link_preview->'embeds'->0->>'url' IS DISTINCT FROM ${url})
        AND COALESCE(props->>'remove_link_preview', '') <> 'true'
      RETURNING id`).pipe(Updated)
    return updated.length > 0
  })
