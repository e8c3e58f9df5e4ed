-- Idempotent POST /posts (issue 25): the pending_post_id an app sends with a post, and sends again when it retries
-- after a network error, claimed per author for a few minutes in the statement that writes the post. A retry finds
-- the first post here instead of writing a second. A cache, not a record: unlogged (no WAL; emptied after a crash,
-- which only forgets the last minutes' ids), swept of old rows by every node.
CREATE UNLOGGED TABLE IF NOT EXISTS post_pending_ids (
  user_id         text NOT NULL,
  pending_post_id text NOT NULL,
  post_id         text NOT NULL,
  create_at       bigint NOT NULL,
  PRIMARY KEY (user_id, pending_post_id)
);
