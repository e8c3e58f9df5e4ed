-- Prefix search over users (autocomplete, search): one pattern index per searched column, combined by a bitmap OR.
CREATE INDEX users_username_prefix_idx ON users (lower(username) text_pattern_ops);
CREATE INDEX users_first_name_prefix_idx ON users (lower(first_name) text_pattern_ops);
CREATE INDEX users_last_name_prefix_idx ON users (lower(last_name) text_pattern_ops);
CREATE INDEX users_nickname_prefix_idx ON users (lower(nickname) text_pattern_ops);
CREATE INDEX users_email_prefix_idx ON users (lower(email) text_pattern_ops);
