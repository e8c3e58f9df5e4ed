-- Personal access tokens (issue 16). The token itself is never stored: only its SHA-256, looked up on each request
-- that carries one. session_id names the UserAccessToken session the token authenticates as; it is recreated when
-- missing (after "sign out everywhere") while the token is active.
CREATE TABLE user_access_tokens (
  id          text PRIMARY KEY,
  token_hash  text NOT NULL UNIQUE,
  user_id     text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  description text NOT NULL,
  is_active   boolean NOT NULL DEFAULT true,
  session_id  text,
  create_at   bigint NOT NULL,
  expires_at  bigint NOT NULL DEFAULT 0 -- 0: never
);
CREATE INDEX user_access_tokens_user_id_idx ON user_access_tokens (user_id, create_at);

-- Integration switches (EnableUserAccessTokens and the others) live in server_config's "integrations" section.
