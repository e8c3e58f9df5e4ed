-- Deleting a custom emoji removes every reaction that uses it: find those by name, not by scanning reactions.
CREATE INDEX reactions_emoji_name_idx ON reactions (emoji_name) WHERE delete_at = 0;
