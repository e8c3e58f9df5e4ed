-- TOTP two-factor secrets, kept apart from users so that no `SELECT * FROM users` ever carries one. The secret is
-- AES-256-GCM ciphertext (layers/Crypto.ts); users.mfa_active says whether sign-in asks for a code. last_step is the
-- last 30-second step whose code was accepted: a code is never accepted twice.
CREATE TABLE user_mfa (
  user_id    text PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  secret     text NOT NULL,
  create_at  bigint NOT NULL,
  last_step  bigint NOT NULL DEFAULT 0
);
