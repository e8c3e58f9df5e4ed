-- Post acknowledgements (Mattermost's PostAcknowledgement): one row per user who acknowledged a post. The primary
-- key is the index of both query paths: a post's acknowledgements (post metadata, by its post_id prefix) and the
-- caller's own add/remove (post_id, user_id). Removing a post removes its acknowledgements.
CREATE TABLE post_acknowledgements (
  post_id          text NOT NULL REFERENCES posts (id) ON DELETE CASCADE,
  user_id          text NOT NULL,
  acknowledged_at  bigint NOT NULL,
  PRIMARY KEY (post_id, user_id)
);
