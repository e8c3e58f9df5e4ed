-- The product's tables from the start. Timestamps are Unix milliseconds (bigint), as on the Mattermost wire.
-- Ids are 26-character Mattermost ids except SSO provider ids, which are UUIDs.

CREATE TABLE users (
  id                    text PRIMARY KEY,
  create_at             bigint NOT NULL,
  update_at             bigint NOT NULL,
  delete_at             bigint NOT NULL DEFAULT 0,
  username              text NOT NULL,
  password              text NOT NULL DEFAULT '',
  auth_data             text,
  auth_service          text NOT NULL DEFAULT '',
  email                 text NOT NULL,
  email_verified        boolean NOT NULL DEFAULT false,
  nickname              text NOT NULL DEFAULT '',
  first_name            text NOT NULL DEFAULT '',
  last_name             text NOT NULL DEFAULT '',
  position              text NOT NULL DEFAULT '',
  roles                 text NOT NULL DEFAULT 'system_user',
  locale                text NOT NULL DEFAULT 'en',
  timezone              jsonb NOT NULL DEFAULT '{"useAutomaticTimezone":"true","automaticTimezone":"","manualTimezone":""}',
  notify_props          jsonb NOT NULL DEFAULT '{}',
  props                 jsonb NOT NULL DEFAULT '{}',
  last_password_update  bigint NOT NULL DEFAULT 0,
  last_picture_update   bigint NOT NULL DEFAULT 0,
  failed_attempts       integer NOT NULL DEFAULT 0,
  mfa_active            boolean NOT NULL DEFAULT false,
  last_login            bigint NOT NULL DEFAULT 0,
  is_bot                boolean NOT NULL DEFAULT false
);
CREATE UNIQUE INDEX users_username_key ON users (lower(username));
CREATE UNIQUE INDEX users_email_key ON users (lower(email));
CREATE INDEX users_update_at_idx ON users (update_at);
CREATE INDEX users_search_idx ON users USING gin (
  to_tsvector('simple', username || ' ' || first_name || ' ' || last_name || ' ' || nickname || ' ' || email)
);

CREATE TABLE sessions (
  id                text PRIMARY KEY,
  user_id           text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  create_at         bigint NOT NULL,
  expires_at        bigint NOT NULL,
  last_activity_at  bigint NOT NULL,
  device_id         text NOT NULL DEFAULT '',
  roles             text NOT NULL DEFAULT '',
  is_oauth          boolean NOT NULL DEFAULT false,
  props             jsonb NOT NULL DEFAULT '{}'
);
CREATE INDEX sessions_user_id_idx ON sessions (user_id);
CREATE INDEX sessions_device_id_idx ON sessions (device_id) WHERE device_id <> '';
CREATE INDEX sessions_expires_at_idx ON sessions (expires_at);

CREATE TABLE user_identities (
  provider_id   uuid NOT NULL,
  subject       text NOT NULL,
  user_id       text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  email         text NOT NULL DEFAULT '',
  create_at     bigint NOT NULL,
  last_login_at bigint NOT NULL,
  PRIMARY KEY (provider_id, subject)
);
CREATE INDEX user_identities_user_id_idx ON user_identities (user_id);

CREATE TABLE teams (
  id                    text PRIMARY KEY,
  create_at             bigint NOT NULL,
  update_at             bigint NOT NULL,
  delete_at             bigint NOT NULL DEFAULT 0,
  display_name          text NOT NULL,
  name                  text NOT NULL,
  description           text NOT NULL DEFAULT '',
  email                 text NOT NULL DEFAULT '',
  type                  text NOT NULL DEFAULT 'O',
  company_name          text NOT NULL DEFAULT '',
  allowed_domains       text NOT NULL DEFAULT '',
  invite_id             text NOT NULL DEFAULT '',
  allow_open_invite     boolean NOT NULL DEFAULT false,
  last_team_icon_update bigint NOT NULL DEFAULT 0,
  group_constrained     boolean NOT NULL DEFAULT false
);
CREATE UNIQUE INDEX teams_name_key ON teams (name);

CREATE TABLE team_members (
  team_id       text NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
  user_id       text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  roles         text NOT NULL DEFAULT '',
  delete_at     bigint NOT NULL DEFAULT 0,
  scheme_guest  boolean NOT NULL DEFAULT false,
  scheme_user   boolean NOT NULL DEFAULT true,
  scheme_admin  boolean NOT NULL DEFAULT false,
  create_at     bigint NOT NULL,
  PRIMARY KEY (team_id, user_id)
);
CREATE INDEX team_members_user_id_idx ON team_members (user_id);

CREATE TABLE channels (
  id                    text PRIMARY KEY,
  create_at             bigint NOT NULL,
  update_at             bigint NOT NULL,
  delete_at             bigint NOT NULL DEFAULT 0,
  team_id               text NOT NULL DEFAULT '',
  type                  text NOT NULL,
  display_name          text NOT NULL DEFAULT '',
  name                  text NOT NULL,
  header                text NOT NULL DEFAULT '',
  purpose               text NOT NULL DEFAULT '',
  last_post_at          bigint NOT NULL DEFAULT 0,
  last_root_post_at     bigint NOT NULL DEFAULT 0,
  total_msg_count       bigint NOT NULL DEFAULT 0,
  total_msg_count_root  bigint NOT NULL DEFAULT 0,
  creator_id            text NOT NULL DEFAULT '',
  group_constrained     boolean NOT NULL DEFAULT false,
  shared                boolean NOT NULL DEFAULT false,
  props                 jsonb NOT NULL DEFAULT '{}'
);
CREATE UNIQUE INDEX channels_team_name_key ON channels (team_id, name);
CREATE INDEX channels_team_id_idx ON channels (team_id, type);

CREATE TABLE channel_members (
  channel_id            text NOT NULL REFERENCES channels (id) ON DELETE CASCADE,
  user_id               text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  roles                 text NOT NULL DEFAULT '',
  last_viewed_at        bigint NOT NULL DEFAULT 0,
  msg_count             bigint NOT NULL DEFAULT 0,
  msg_count_root        bigint NOT NULL DEFAULT 0,
  mention_count         bigint NOT NULL DEFAULT 0,
  mention_count_root    bigint NOT NULL DEFAULT 0,
  urgent_mention_count  bigint NOT NULL DEFAULT 0,
  notify_props          jsonb NOT NULL DEFAULT '{}',
  last_update_at        bigint NOT NULL DEFAULT 0,
  scheme_guest          boolean NOT NULL DEFAULT false,
  scheme_user           boolean NOT NULL DEFAULT true,
  scheme_admin          boolean NOT NULL DEFAULT false,
  PRIMARY KEY (channel_id, user_id)
);
CREATE INDEX channel_members_user_id_idx ON channel_members (user_id);

CREATE TABLE posts (
  id               text PRIMARY KEY,
  create_at        bigint NOT NULL,
  update_at        bigint NOT NULL,
  edit_at          bigint NOT NULL DEFAULT 0,
  delete_at        bigint NOT NULL DEFAULT 0,
  is_pinned        boolean NOT NULL DEFAULT false,
  user_id          text NOT NULL,
  channel_id       text NOT NULL REFERENCES channels (id) ON DELETE CASCADE,
  root_id          text NOT NULL DEFAULT '',
  original_id      text NOT NULL DEFAULT '',
  message          text NOT NULL DEFAULT '',
  type             text NOT NULL DEFAULT '',
  props            jsonb NOT NULL DEFAULT '{}',
  hashtags         text NOT NULL DEFAULT '',
  file_ids         jsonb NOT NULL DEFAULT '[]',
  pending_post_id  text NOT NULL DEFAULT '',
  has_reactions    boolean NOT NULL DEFAULT false,
  search_vector    tsvector GENERATED ALWAYS AS (to_tsvector('english', message || ' ' || hashtags)) STORED
);
CREATE INDEX posts_channel_create_idx ON posts (channel_id, create_at);
CREATE INDEX posts_channel_update_idx ON posts (channel_id, update_at);
CREATE INDEX posts_root_create_idx ON posts (root_id, create_at) WHERE root_id <> '';
CREATE INDEX posts_user_idx ON posts (user_id, create_at);
CREATE INDEX posts_pinned_idx ON posts (channel_id) WHERE is_pinned;
CREATE INDEX posts_search_idx ON posts USING gin (search_vector);

CREATE TABLE threads (
  post_id        text PRIMARY KEY REFERENCES posts (id) ON DELETE CASCADE,
  channel_id     text NOT NULL,
  reply_count    bigint NOT NULL DEFAULT 0,
  last_reply_at  bigint NOT NULL DEFAULT 0,
  participants   jsonb NOT NULL DEFAULT '[]',
  delete_at      bigint NOT NULL DEFAULT 0
);
CREATE INDEX threads_channel_idx ON threads (channel_id, last_reply_at);

CREATE TABLE thread_memberships (
  post_id          text NOT NULL REFERENCES threads (post_id) ON DELETE CASCADE,
  user_id          text NOT NULL,
  following        boolean NOT NULL DEFAULT true,
  last_viewed      bigint NOT NULL DEFAULT 0,
  last_updated     bigint NOT NULL DEFAULT 0,
  unread_mentions  bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (post_id, user_id)
);
CREATE INDEX thread_memberships_user_idx ON thread_memberships (user_id, last_updated);

CREATE TABLE reactions (
  post_id     text NOT NULL REFERENCES posts (id) ON DELETE CASCADE,
  user_id     text NOT NULL,
  emoji_name  text NOT NULL,
  channel_id  text NOT NULL,
  create_at   bigint NOT NULL,
  update_at   bigint NOT NULL,
  delete_at   bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (post_id, user_id, emoji_name)
);

CREATE TABLE file_infos (
  id                  text PRIMARY KEY,
  creator_id          text NOT NULL,
  post_id             text NOT NULL DEFAULT '',
  channel_id          text NOT NULL DEFAULT '',
  create_at           bigint NOT NULL,
  update_at           bigint NOT NULL,
  delete_at           bigint NOT NULL DEFAULT 0,
  path                text NOT NULL,
  thumbnail_path      text NOT NULL DEFAULT '',
  preview_path        text NOT NULL DEFAULT '',
  name                text NOT NULL,
  extension           text NOT NULL DEFAULT '',
  size                bigint NOT NULL,
  mime_type           text NOT NULL DEFAULT '',
  width               integer NOT NULL DEFAULT 0,
  height              integer NOT NULL DEFAULT 0,
  has_preview_image   boolean NOT NULL DEFAULT false,
  mini_preview        bytea
);
CREATE INDEX file_infos_post_idx ON file_infos (post_id) WHERE post_id <> '';
CREATE INDEX file_infos_channel_idx ON file_infos (channel_id, create_at);
CREATE INDEX file_infos_creator_idx ON file_infos (creator_id);

CREATE TABLE preferences (
  user_id   text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  category  text NOT NULL,
  name      text NOT NULL,
  value     text NOT NULL DEFAULT '',
  PRIMARY KEY (user_id, category, name)
);
CREATE INDEX preferences_category_idx ON preferences (category, name);

CREATE TABLE emoji (
  id          text PRIMARY KEY,
  create_at   bigint NOT NULL,
  update_at   bigint NOT NULL,
  delete_at   bigint NOT NULL DEFAULT 0,
  creator_id  text NOT NULL,
  name        text NOT NULL
);
CREATE UNIQUE INDEX emoji_name_key ON emoji (name) WHERE delete_at = 0;

CREATE TABLE statuses (
  user_id           text PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  status            text NOT NULL DEFAULT 'offline',
  manual            boolean NOT NULL DEFAULT false,
  last_activity_at  bigint NOT NULL DEFAULT 0,
  dnd_end_time      bigint NOT NULL DEFAULT 0,
  prev_status       text NOT NULL DEFAULT ''
);

CREATE TABLE sidebar_categories (
  id            text PRIMARY KEY,
  user_id       text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  team_id       text NOT NULL,
  display_name  text NOT NULL,
  type          text NOT NULL,
  sort_order    bigint NOT NULL DEFAULT 0,
  sorting       text NOT NULL DEFAULT '',
  muted         boolean NOT NULL DEFAULT false,
  collapsed     boolean NOT NULL DEFAULT false
);
CREATE INDEX sidebar_categories_user_team_idx ON sidebar_categories (user_id, team_id);

CREATE TABLE sidebar_channels (
  category_id  text NOT NULL REFERENCES sidebar_categories (id) ON DELETE CASCADE,
  channel_id   text NOT NULL,
  user_id      text NOT NULL,
  sort_order   bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (category_id, channel_id)
);
CREATE INDEX sidebar_channels_user_channel_idx ON sidebar_channels (user_id, channel_id);

-- The server configuration record, one row per section (site, push, sso, ...), each a JSON document.
CREATE TABLE server_config (
  section    text PRIMARY KEY,
  value      jsonb NOT NULL DEFAULT '{}',
  update_at  bigint NOT NULL
);
INSERT INTO server_config (section, value, update_at) VALUES
  ('site', '{"max_simultaneous_connections": 10}', 0),
  ('push', '{}', 0),
  ('sso', '{"enable_sso": false, "require_sso": false}', 0);

CREATE TABLE sso_providers (
  id                       uuid PRIMARY KEY,
  provider_key             text NOT NULL UNIQUE,
  provider_type            text NOT NULL CHECK (provider_type IN ('codehost', 'webidp', 'oidc')),
  display_name             text NOT NULL,
  issuer_url               text,
  client_id                text NOT NULL,
  client_secret_encrypted  text NOT NULL,
  is_active                boolean NOT NULL DEFAULT false,
  auto_provision           boolean NOT NULL DEFAULT false,
  default_role             text NOT NULL DEFAULT 'member',
  groups_claim             text,
  role_mappings            jsonb,
  allow_domains            jsonb,
  settings                 jsonb NOT NULL DEFAULT '{}',
  last_test_at             bigint,
  last_test_success        boolean NOT NULL DEFAULT false,
  create_at                bigint NOT NULL,
  update_at                bigint NOT NULL
);

CREATE TABLE device_registrations (
  user_id       text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  device_id     text NOT NULL,
  token         text NOT NULL,
  platform      text NOT NULL CHECK (platform IN ('ios', 'android')),
  create_at     bigint NOT NULL,
  last_seen_at  bigint NOT NULL,
  PRIMARY KEY (user_id, device_id)
);
CREATE INDEX device_registrations_last_seen_idx ON device_registrations (last_seen_at);
CREATE INDEX device_registrations_token_idx ON device_registrations (token);
