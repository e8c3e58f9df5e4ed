-- A root post without files (the most common write) in one CALL of two transactions (issue 10). Every post into a
-- channel updates the channel's row (its counters, and last_post_at, from which create_at is made strictly increasing
-- per channel), and PostgreSQL keeps an UPDATE's row lock until the commit is flushed to disk: in one transaction,
-- posts into one channel committed one after another, each behind the previous one's fsync (697 commits/s on this
-- machine kind, against 3,951 for the same UPDATE committed asynchronously; docs/performance.md).
--
-- 1. The counters and the author's read state, committed with synchronous_commit off: the row locks are released as
--    soon as the commit record is in the WAL buffers, and the new counts are visible to everyone at once.
-- 2. The post and the mentioned members' counts, committed durably when the CALL ends. Flushing that commit flushes
--    all WAL before it, the counters' commit included: once a post is acknowledged, its counters are on disk too.
--
-- If the post cannot be written after the counters committed (an error, or the statement cancelled by its timeout),
-- the counters are taken back in its place: o_failed then says why, and the service fails the request. Only a crash
-- of PostgreSQL (or of the connection) between the two commits, a window of one statement, can leave a channel
-- counting one post that does not exist: its members see one unread message more than there is until they next view
-- the channel (viewing sets their count to the channel's). Never a post without its counters.
--
-- With p_guarded, the checks the service makes before a root post that mentions nobody, as a condition on the
-- channel's row: it exists and is not deleted, the caller may write in it (a member, or a system admin), and it is
-- neither a direct nor a group channel. When it does not hold nothing is written and o_at is NULL.
CREATE PROCEDURE write_root_post(
  p_id text, p_now bigint, p_channel_id text, p_user_id text, p_guarded boolean, p_is_admin boolean,
  p_message text, p_type text, p_props jsonb, p_hashtags text, p_pending_post_id text, p_mentioned text[],
  INOUT o_at bigint DEFAULT NULL, INOUT o_props jsonb DEFAULT NULL, INOUT o_username text DEFAULT NULL,
  INOUT o_team_id text DEFAULT NULL, INOUT o_type text DEFAULT NULL, INOUT o_name text DEFAULT NULL,
  INOUT o_display_name text DEFAULT NULL, INOUT o_failed text DEFAULT NULL)
LANGUAGE plpgsql AS $$
DECLARE
  v_total bigint;
  v_total_root bigint;
BEGIN
  PERFORM set_config('synchronous_commit', 'off', true);
  UPDATE channels c SET
    last_post_at = GREATEST(c.last_post_at + 1, p_now),
    last_root_post_at = GREATEST(c.last_post_at + 1, p_now),
    total_msg_count = c.total_msg_count + 1,
    total_msg_count_root = c.total_msg_count_root + 1
  WHERE c.id = p_channel_id
    AND (NOT p_guarded OR (c.delete_at = 0 AND c.type NOT IN ('D', 'G')
      AND (p_is_admin OR EXISTS (SELECT 1 FROM channel_members m WHERE m.channel_id = p_channel_id AND m.user_id = p_user_id))))
  RETURNING c.last_post_at, c.total_msg_count, c.total_msg_count_root, c.team_id, c.type, c.name, c.display_name
  INTO o_at, v_total, v_total_root, o_team_id, o_type, o_name, o_display_name;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  UPDATE channel_members m SET last_viewed_at = o_at, msg_count = v_total, msg_count_root = v_total_root,
    mention_count = 0, mention_count_root = 0, urgent_mention_count = 0, last_update_at = p_now
  WHERE m.channel_id = p_channel_id AND m.user_id = p_user_id;
  COMMIT;

  BEGIN
    INSERT INTO posts (id, create_at, update_at, user_id, channel_id, root_id, message, type, props, hashtags,
                       file_ids, pending_post_id)
    VALUES (p_id, o_at, o_at, p_user_id, p_channel_id, '', p_message, p_type, p_props, p_hashtags, '[]'::jsonb,
            p_pending_post_id)
    RETURNING props INTO o_props;
    IF cardinality(p_mentioned) > 0 THEN
      UPDATE channel_members m SET mention_count = m.mention_count + 1, mention_count_root = m.mention_count_root + 1,
        last_update_at = p_now
      WHERE m.channel_id = p_channel_id AND m.user_id = ANY(p_mentioned);
    END IF;
  EXCEPTION WHEN OTHERS OR query_canceled THEN
    UPDATE channels c SET total_msg_count = c.total_msg_count - 1, total_msg_count_root = c.total_msg_count_root - 1
    WHERE c.id = p_channel_id;
    UPDATE channel_members m SET msg_count = m.msg_count - 1, msg_count_root = m.msg_count_root - 1
    WHERE m.channel_id = p_channel_id AND m.user_id = p_user_id AND m.msg_count = v_total;
    o_failed := SQLSTATE || ': ' || SQLERRM;
    o_at := NULL;
    RETURN;
  END;
  SELECT u.username INTO o_username FROM users u WHERE u.id = p_user_id;
END
$$;
