-- Bot accounts (issue 16): a bot is a users row with is_bot; this table holds what only bots have. A bot is
-- disabled the way a user is deactivated (users.delete_at). owner_id is the user who manages it; a bot whose owner
-- is gone is "orphaned".
CREATE TABLE bots (
  user_id     text PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  description text NOT NULL DEFAULT '',
  owner_id    text NOT NULL,
  create_at   bigint NOT NULL,
  update_at   bigint NOT NULL
);
CREATE INDEX bots_owner_id_idx ON bots (owner_id);
