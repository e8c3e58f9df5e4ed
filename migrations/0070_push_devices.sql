-- Registrations recorded by PUT /users/sessions/device name the session they came from: such a device is reached
-- through its session (and stops with it); registrations from POST /users/me/device have no session.
ALTER TABLE device_registrations ADD COLUMN session_id text;

-- Acknowledgements the apps post on receiving a push (POST /api/v4/notifications/ack); pruned by the device sweep.
CREATE TABLE push_acks (
  ack_id       text PRIMARY KEY,
  user_id      text NOT NULL,
  type         text NOT NULL DEFAULT '',
  post_id      text NOT NULL DEFAULT '',
  platform     text NOT NULL DEFAULT '',
  received_at  bigint NOT NULL,
  create_at    bigint NOT NULL
);
CREATE INDEX push_acks_create_at_idx ON push_acks (create_at);
