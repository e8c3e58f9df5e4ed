-- Incoming webhooks (issue 16). The id is the secret part of the hook's URL (/hooks/{id}), as in Mattermost.
CREATE TABLE incoming_webhooks (
  id             text PRIMARY KEY,
  create_at      bigint NOT NULL,
  update_at      bigint NOT NULL,
  delete_at      bigint NOT NULL DEFAULT 0,
  last_used      bigint NOT NULL DEFAULT 0,
  user_id        text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  channel_id     text NOT NULL,
  team_id        text NOT NULL,
  display_name   text NOT NULL DEFAULT '',
  description    text NOT NULL DEFAULT '',
  username       text NOT NULL DEFAULT '',
  icon_url       text NOT NULL DEFAULT '',
  channel_locked boolean NOT NULL DEFAULT false
);
CREATE INDEX incoming_webhooks_team_idx ON incoming_webhooks (team_id, create_at) WHERE delete_at = 0;
CREATE INDEX incoming_webhooks_user_idx ON incoming_webhooks (user_id) WHERE delete_at = 0;
