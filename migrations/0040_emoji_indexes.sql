-- Custom emoji query paths: the default list order and name-prefix search (autocomplete). text_pattern_ops lets
-- LIKE 'prefix%' use the index under any collation. Sorting by name uses emoji_name_key of 0001.
CREATE INDEX emoji_create_at_idx ON emoji (create_at, id) WHERE delete_at = 0;
CREATE INDEX emoji_name_pattern_idx ON emoji (name text_pattern_ops) WHERE delete_at = 0;
