-- One-time tokens mailed to a user (password recovery, email verification). Only the SHA-256 of the token is kept:
-- a copy of the database gives nobody a working link. A token is consumed by deleting its row.
CREATE TABLE user_tokens (
  token_hash  text PRIMARY KEY,
  type        text NOT NULL,
  user_id     text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  extra       text NOT NULL DEFAULT '',
  create_at   bigint NOT NULL,
  expires_at  bigint NOT NULL
);
CREATE INDEX user_tokens_user_type_idx ON user_tokens (user_id, type);
CREATE INDEX user_tokens_expires_at_idx ON user_tokens (expires_at);
