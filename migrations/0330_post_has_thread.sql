-- Whether a post is the root of a thread (issue 31): set with the first reply, in the same statement that moves the
-- root's update_at (src/threads/ThreadRepo.ts recordReply, src/imports/ImportRepo.ts refreshThreads, the only writers
-- of the threads table), and never cleared (a thread whose replies were all deleted keeps its row). Post lists look a
-- post's thread up, and the replies of the threads they show, only for replies and for roots with has_thread: most
-- roots have no replies, and those were two index probes per listed post that found nothing, more than half of a
-- channel page's buffers when no listed post had replies.
ALTER TABLE posts ADD COLUMN has_thread boolean NOT NULL DEFAULT false;

UPDATE posts SET has_thread = true
WHERE id IN (SELECT post_id FROM threads UNION SELECT root_id FROM posts WHERE root_id <> '');
