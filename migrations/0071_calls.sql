-- Calls, enough to ring: one active call per channel (end_at = 0), who dismissed its notification, and the
-- per-channel enable switch of the Calls plugin API.
CREATE TABLE calls (
  id          text PRIMARY KEY,
  channel_id  text NOT NULL REFERENCES channels (id) ON DELETE CASCADE,
  owner_id    text NOT NULL,
  start_at    bigint NOT NULL,
  end_at      bigint NOT NULL DEFAULT 0,
  thread_id   text NOT NULL DEFAULT '',
  post_id     text NOT NULL DEFAULT '',
  dismissed   jsonb NOT NULL DEFAULT '{}'
);
CREATE UNIQUE INDEX calls_active_channel_key ON calls (channel_id) WHERE end_at = 0;

CREATE TABLE calls_channels (
  channel_id  text PRIMARY KEY REFERENCES channels (id) ON DELETE CASCADE,
  enabled     boolean NOT NULL
);
