-- Whether a post has acknowledgements, and a priority (issue 31). Post lists look a post's acknowledgements and
-- priority up only where these are set, as they look reactions up only where has_reactions is: most posts have
-- neither, and the two lookups skipped were two index probes per listed post, about 40% of a channel page's
-- buffers. Kept by the writes of those tables (src/posts/AckRepo.ts, src/posts/CreatePost.ts).
ALTER TABLE posts
  ADD COLUMN has_acknowledgements boolean NOT NULL DEFAULT false,
  ADD COLUMN has_priority boolean NOT NULL DEFAULT false;

UPDATE posts SET has_acknowledgements = true WHERE id IN (SELECT post_id FROM post_acknowledgements);
UPDATE posts SET has_priority = true WHERE id IN (SELECT post_id FROM post_priority);
