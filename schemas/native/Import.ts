import { Schema } from "effect"
import { ImportFormat, ImportJob as BulkImportJob } from "../BulkImport.ts"
import { Id, QueryBool } from "../Params.ts"

/**
 * /api/v1/admin/import (docs/api-v1.md "Bulk import"): the job and the JSON request are the bulk-import schemas of
 * schemas/BulkImport.ts; what is the admin API's own is here.
 */
export { StartImport } from "../BulkImport.ts"

export const ImportJob = BulkImportJob.annotations({ identifier: "ImportJob" })

/** With an uploaded file: `?dry_run=true` validates without importing. */
export const DryRunQuery = Schema.Struct({
  dry_run: Schema.optionalWith(QueryBool, { default: () => false }),
  /** `slack` for a Slack workspace export, which goes into `team` (created when missing). */
  format: Schema.optionalWith(ImportFormat, { default: () => "mattermost" as const }),
  team: Schema.optional(Schema.String)
})

export const ImportIdParams = Schema.Struct({ id: Id })
