-- Roles and the permissions they grant (issue 26), as Mattermost's Roles table: the built-in roles are seeded at
-- start-up from src/system/RoleDefaults.ts (missing names only, so an administrator's edits survive restarts and a
-- role added to the defaults later appears by itself). Permissions are space-separated, as Mattermost stores them.
CREATE TABLE roles (
  id             text PRIMARY KEY,
  name           text NOT NULL UNIQUE,
  display_name   text NOT NULL,
  description    text NOT NULL DEFAULT '',
  create_at      bigint NOT NULL,
  update_at      bigint NOT NULL,
  delete_at      bigint NOT NULL DEFAULT 0,
  permissions    text NOT NULL DEFAULT '',
  scheme_managed boolean NOT NULL,
  built_in       boolean NOT NULL
);
