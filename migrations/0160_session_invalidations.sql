-- Every change that ends or alters sessions (logout, revocation, password change, deactivation, role change, device
-- update, revoke-all) appends a row here in the transaction that makes it. Each node reads the rows past the last one
-- it saw every half second, so a copy of a session in a cache (Redis, or a node's memory) that was read from the
-- database before the change is refused on every node, even when the cache could not be told (a node cut from
-- Redis, a stale copy written back by a request that raced the change). Writers take one advisory lock, so rows
-- become visible in seq order and a reader that sees seq N has seen every row below it.
CREATE TABLE session_invalidations (
  seq         bigserial PRIMARY KEY,
  -- The sessions deleted or changed; empty when `every` is set.
  session_ids text[]  NOT NULL,
  -- Every session there was (revoke all).
  every       boolean NOT NULL DEFAULT false,
  at          bigint  NOT NULL
);
-- The hourly prune.
CREATE INDEX session_invalidations_at_idx ON session_invalidations (at);
