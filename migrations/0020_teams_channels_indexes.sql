-- Query paths of teams, channels and sidebar categories not covered by the initial indexes.

-- Open teams listed to everyone (GET /teams), ordered by display name.
CREATE INDEX teams_open_display_idx ON teams (display_name, id) WHERE allow_open_invite AND delete_at = 0;
-- Joining through an invite link.
CREATE INDEX teams_invite_id_idx ON teams (invite_id) WHERE invite_id <> '';
-- Team member lists ordered by user, active members only.
CREATE INDEX team_members_team_active_idx ON team_members (team_id, user_id) WHERE delete_at = 0;
-- Channel name/display-name prefix search and autocomplete within a team.
CREATE INDEX channels_team_lower_name_idx ON channels (team_id, lower(name) text_pattern_ops);
CREATE INDEX channels_team_lower_display_idx ON channels (team_id, lower(display_name) text_pattern_ops);
-- Archived channels of a team.
CREATE INDEX channels_team_deleted_idx ON channels (team_id, delete_at) WHERE delete_at <> 0;
-- Sidebar: a user's categories of one type (DMs and GMs go to every team's direct_messages category).
CREATE INDEX sidebar_categories_user_type_idx ON sidebar_categories (user_id, type);
-- Files counted per channel for channel stats.
CREATE INDEX file_infos_channel_live_idx ON file_infos (channel_id) WHERE delete_at = 0;
