/** The bare page baseline's one statement (bench/bare.ts runs it; bench/ratios.ts and bench/pagescale.ts time it beside the service's). */
export const BARE_COLUMNS = `id, create_at, update_at, edit_at, delete_at, is_pinned, user_id, channel_id, root_id, original_id, message,
  type, props, hashtags, file_ids, pending_post_id`

export const BARE_PAGE_SELECT = `SELECT ${BARE_COLUMNS} FROM posts WHERE channel_id = $1 AND delete_at = 0 ORDER BY create_at DESC LIMIT 61`
