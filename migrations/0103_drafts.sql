-- Synced drafts: one per user, channel and thread (root_id '' for the channel itself), shared by the user's devices.
CREATE TABLE drafts (
  user_id     text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  channel_id  text NOT NULL REFERENCES channels (id) ON DELETE CASCADE,
  root_id     text NOT NULL DEFAULT '',
  create_at   bigint NOT NULL,
  update_at   bigint NOT NULL,
  message     text NOT NULL DEFAULT '',
  props       jsonb NOT NULL DEFAULT '{}',
  file_ids    jsonb NOT NULL DEFAULT '[]',
  PRIMARY KEY (user_id, channel_id, root_id)
);
