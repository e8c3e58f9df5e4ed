-- Mention and direct-message emails for people who are away (issue 15): one row per recipient and post, waiting for
-- the recipient's batching interval. Rows are claimed by deleting them, so that of several nodes exactly one mails
-- each notification.
CREATE TABLE pending_email_notifications (
  user_id   text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  post_id   text NOT NULL,
  create_at bigint NOT NULL,
  PRIMARY KEY (user_id, post_id)
);
CREATE INDEX pending_email_notifications_create_at_idx ON pending_email_notifications (create_at);
