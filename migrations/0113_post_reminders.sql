-- Post reminders ("Remind me", issue 15/16): one per user and post; target_time in seconds, as Mattermost's API.
-- Due rows are claimed by deleting them, so that of several nodes exactly one sends each reminder.
CREATE TABLE post_reminders (
  post_id     text NOT NULL,
  user_id     text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  target_time bigint NOT NULL,
  PRIMARY KEY (post_id, user_id)
);
CREATE INDEX post_reminders_due_idx ON post_reminders (target_time);
