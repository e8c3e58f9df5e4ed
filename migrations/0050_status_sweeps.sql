-- The status sweeps (away after inactivity, end of timed DND, offline healing) look only at users who are not
-- offline, usually a small share of the table.
CREATE INDEX statuses_not_offline_idx ON statuses (status, last_activity_at) WHERE status <> 'offline';
