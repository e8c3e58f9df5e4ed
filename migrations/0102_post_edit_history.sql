-- Earlier versions of edited posts. Mattermost keeps each as a hidden post whose original_id names the edited post;
-- they are kept here instead, apart from posts, so that no channel, thread, search or since query can ever return
-- one. GET /posts/{id}/edit_history renders them as those hidden posts.
CREATE TABLE post_edit_history (
  id           text PRIMARY KEY,
  original_id  text NOT NULL REFERENCES posts (id) ON DELETE CASCADE,
  create_at    bigint NOT NULL,
  edit_at      bigint NOT NULL,
  replaced_at  bigint NOT NULL,
  user_id      text NOT NULL,
  channel_id   text NOT NULL,
  root_id      text NOT NULL,
  message      text NOT NULL,
  type         text NOT NULL,
  props        jsonb NOT NULL,
  hashtags     text NOT NULL,
  file_ids     jsonb NOT NULL
);
CREATE INDEX post_edit_history_original_idx ON post_edit_history (original_id, replaced_at DESC);
