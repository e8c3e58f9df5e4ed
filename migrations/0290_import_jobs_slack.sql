-- Slack workspace exports as import jobs (POST /api/v1/admin/import?format=slack&team=NAME, src/imports/ImportJobs.ts):
-- the job's format and target team, and the Slack conversion's report (people, channels, messages, files, files only
-- linked, skipped with reasons) kept on the row for GET /api/v1/admin/import/{id}.
ALTER TABLE import_jobs
  ADD COLUMN format text NOT NULL DEFAULT 'mattermost',
  ADD COLUMN team   text NOT NULL DEFAULT '',
  ADD COLUMN report jsonb;
