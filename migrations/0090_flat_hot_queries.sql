-- Indexes that keep hot queries bounded by the page whatever the size of the tables (test/posts/Explain.test.ts).

-- Channel stats count a channel's members less the deactivated users among them: deactivated users are few, so an
-- index of them alone answers "is this member deactivated" without reading users.
CREATE INDEX users_deactivated_idx ON users (id) WHERE delete_at <> 0;
