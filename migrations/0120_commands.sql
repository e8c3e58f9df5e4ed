-- Custom slash commands (issue 16), as Mattermost's Commands table. The token is sent to the command's URL so that
-- the integration can tell the request came from this server.
CREATE TABLE commands (
  id                 text PRIMARY KEY,
  token              text NOT NULL,
  create_at          bigint NOT NULL,
  update_at          bigint NOT NULL,
  delete_at          bigint NOT NULL DEFAULT 0,
  creator_id         text NOT NULL,
  team_id            text NOT NULL,
  trigger            text NOT NULL,
  method             text NOT NULL,
  username           text NOT NULL DEFAULT '',
  icon_url           text NOT NULL DEFAULT '',
  auto_complete      boolean NOT NULL DEFAULT false,
  auto_complete_desc text NOT NULL DEFAULT '',
  auto_complete_hint text NOT NULL DEFAULT '',
  display_name       text NOT NULL DEFAULT '',
  description        text NOT NULL DEFAULT '',
  url                text NOT NULL
);
-- One live command per trigger and team: execution finds the command by both.
CREATE UNIQUE INDEX commands_team_trigger_idx ON commands (team_id, trigger) WHERE delete_at = 0;

-- The response_url of one command execution (/hooks/commands/{id}): Mattermost's CommandWebhooks, usable a few
-- times within 30 minutes for delayed answers.
CREATE TABLE command_webhooks (
  id         text PRIMARY KEY,
  create_at  bigint NOT NULL,
  command_id text NOT NULL,
  user_id    text NOT NULL,
  channel_id text NOT NULL,
  root_id    text NOT NULL DEFAULT '',
  use_count  integer NOT NULL DEFAULT 0
);
CREATE INDEX command_webhooks_create_idx ON command_webhooks (create_at);
