-- Messages a user scheduled for later. The job claims due rows (processed_at set under FOR UPDATE SKIP LOCKED, so
-- that of several nodes exactly one takes each row), posts them and deletes them; a row it cannot post keeps its
-- processed_at and gets an error_code, as Mattermost shows it.
CREATE TABLE scheduled_posts (
  id            text PRIMARY KEY,
  user_id       text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  channel_id    text NOT NULL REFERENCES channels (id) ON DELETE CASCADE,
  root_id       text NOT NULL DEFAULT '',
  create_at     bigint NOT NULL,
  update_at     bigint NOT NULL,
  scheduled_at  bigint NOT NULL,
  processed_at  bigint NOT NULL DEFAULT 0,
  error_code    text NOT NULL DEFAULT '',
  message       text NOT NULL DEFAULT '',
  props         jsonb NOT NULL DEFAULT '{}',
  file_ids      jsonb NOT NULL DEFAULT '[]'
);
CREATE INDEX scheduled_posts_due_idx ON scheduled_posts (scheduled_at) WHERE processed_at = 0;
CREATE INDEX scheduled_posts_user_idx ON scheduled_posts (user_id);
