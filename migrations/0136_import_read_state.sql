-- An import adds channel members before their channels' posts; a member the file gives no message counts is written
-- with msg_count -1 (and last_viewed_at -1 when it gives no read time either) and settled once the posts are in
-- (src/imports/ImportRepo.ts settleReadState). The marks are in the rows, not in the importer's memory, so an import
-- that stopped part-way and is run again still settles them. The index holds only those rows: normally none.
CREATE INDEX channel_members_import_pending_idx ON channel_members (channel_id, user_id) WHERE msg_count < 0;
