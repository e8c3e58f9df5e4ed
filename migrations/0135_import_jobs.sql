-- Bulk imports started through POST /api/v1/admin/import (src/imports/ImportJobs.ts): the job's state is a row, so
-- that GET /api/v1/admin/import/{id} answers on every node while one node runs it. `path` is the file on that node
-- (an upload is removed when its job ends).
CREATE TABLE import_jobs (
  id           text PRIMARY KEY,
  creator_id   text NOT NULL,
  path         text NOT NULL,
  uploaded     boolean NOT NULL DEFAULT false,
  dry_run      boolean NOT NULL,
  status       text NOT NULL,
  lines_total  bigint NOT NULL DEFAULT 0,
  lines_done   bigint NOT NULL DEFAULT 0,
  created      jsonb NOT NULL DEFAULT '{}',
  existing     jsonb NOT NULL DEFAULT '{}',
  problems     jsonb NOT NULL DEFAULT '[]',
  error        text NOT NULL DEFAULT '',
  create_at    bigint NOT NULL,
  update_at    bigint NOT NULL
);
