-- The members an import has yet to settle (migration 0136) are listed here instead of by a partial index on
-- channel_members (msg_count < 0). A column named in an index's predicate counts as indexed, so with that index no
-- UPDATE of msg_count could be a HOT update: every post's author read state and every channel view wrote new entries
-- into each of channel_members' indexes, which grew with dead entries (issue 10: a post's cost rose as a benchmark
-- went on). The marks stay in the rows (msg_count -1); this table says where they are.
CREATE TABLE channel_member_import_pending (
  channel_id text NOT NULL,
  user_id    text NOT NULL,
  PRIMARY KEY (channel_id, user_id)
);
INSERT INTO channel_member_import_pending (channel_id, user_id)
SELECT channel_id, user_id FROM channel_members WHERE msg_count < 0;
DROP INDEX channel_members_import_pending_idx;
