-- Post priority (issue 15): a root post's label (important, urgent) and whether its author asked for
-- acknowledgements or persistent notifications, as Mattermost's PostsPriority table. Only posts that carry one have
-- a row.
CREATE TABLE post_priority (
  post_id                  text PRIMARY KEY REFERENCES posts (id) ON DELETE CASCADE,
  channel_id               text NOT NULL,
  priority                 text NOT NULL DEFAULT '',
  requested_ack            boolean NOT NULL DEFAULT false,
  persistent_notifications boolean NOT NULL DEFAULT false
);
