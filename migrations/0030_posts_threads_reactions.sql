-- Query paths of posts, threads, reactions, pins and saved posts that 0001 does not index.

-- Collapsed-threads channel pages read root posts only, newest first, with the id as tie-breaker of the cursor.
CREATE INDEX posts_channel_root_create_idx ON posts (channel_id, create_at DESC, id DESC) WHERE root_id = '';
-- Channel pages (all posts) walk (create_at, id) in both directions.
CREATE INDEX posts_channel_create_id_idx ON posts (channel_id, create_at DESC, id DESC);

-- A user's followed threads, newest reply first (GET /users/{id}/teams/{team}/threads).
CREATE INDEX thread_memberships_user_following_idx ON thread_memberships (user_id, post_id) WHERE following;
CREATE INDEX threads_last_reply_idx ON threads (last_reply_at DESC, post_id);

-- Reactions by post (metadata) are served by the primary key; reactions of a user for removal too.
CREATE INDEX reactions_post_create_idx ON reactions (post_id, create_at) WHERE delete_at = 0;
