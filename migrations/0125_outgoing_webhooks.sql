-- Outgoing webhooks (issue 16). A hook watches one public channel, or (channel_id '') every public channel of its team.
CREATE TABLE outgoing_webhooks (
  id            text PRIMARY KEY,
  token         text NOT NULL,
  create_at     bigint NOT NULL,
  update_at     bigint NOT NULL,
  delete_at     bigint NOT NULL DEFAULT 0,
  creator_id    text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  channel_id    text NOT NULL DEFAULT '',
  team_id       text NOT NULL,
  trigger_words jsonb NOT NULL DEFAULT '[]',
  trigger_when  integer NOT NULL DEFAULT 0,
  callback_urls jsonb NOT NULL DEFAULT '[]',
  display_name  text NOT NULL DEFAULT '',
  description   text NOT NULL DEFAULT '',
  content_type  text NOT NULL DEFAULT '',
  username      text NOT NULL DEFAULT '',
  icon_url      text NOT NULL DEFAULT ''
);
-- A node loads a team's hooks when a post there first needs them, then keeps them in memory until they change.
CREATE INDEX outgoing_webhooks_team_idx ON outgoing_webhooks (team_id, channel_id) WHERE delete_at = 0;
