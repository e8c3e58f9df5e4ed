-- SSO: identities belong to a provider (deleting a provider removes its links, never the users), and a user has at
-- most one identity per provider, so that a second account at the same provider can never be linked to it by email.
ALTER TABLE user_identities
  ADD CONSTRAINT user_identities_provider_fk FOREIGN KEY (provider_id) REFERENCES sso_providers (id) ON DELETE CASCADE;
CREATE UNIQUE INDEX user_identities_provider_user_key ON user_identities (provider_id, user_id);
-- The public list, the login page and the mobile mapping read active providers in creation order.
CREATE INDEX sso_providers_active_idx ON sso_providers (create_at, id) WHERE is_active;
