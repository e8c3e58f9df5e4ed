import { HttpRouter, HttpServerResponse } from "@effect/platform"
import { Effect, Stream } from "effect"
import { createReadStream } from "node:fs"
import * as path from "node:path"
import { ExportJob, ExportJobs as ExportJobsPage, ExportNameParams } from "../../schemas/native/ConsoleReports.ts"
import { authed } from "../auth/Guards.ts"
import { notFound } from "../http/ApiError.ts"
import * as Decode from "../http/Decode.ts"
import { respondWith } from "../http/Respond.ts"
import * as ExportJobs from "./ExportJobs.ts"

/**
 * POST /api/v1/admin/export starts a bulk export (201 with the job), GET /api/v1/admin/export lists them, GET
 * /api/v1/admin/export/{name} downloads a finished one. System administrators only: an export holds every post.
 */
const startExport = Effect.gen(function*() {
  return yield* respondWith(ExportJob, (yield* ExportJobs.start)!, 201)
})

const listExports = Effect.gen(function*() {
  return yield* respondWith(ExportJobsPage, { exports: yield* ExportJobs.list })
})

const missing = () => notFound("api.export.not_found.app_error", "No finished export with this name.")

const download = Effect.gen(function*() {
  const { name } = yield* Decode.params(ExportNameParams)
  const job = yield* ExportJobs.find(name)
  if (job === undefined || job.status !== "succeeded") return yield* missing()
  const file = path.join(yield* ExportJobs.exportsDir, name)
  return HttpServerResponse.stream(Stream.fromAsyncIterable(createReadStream(file), (e) => e), {
    contentType: "application/zip",
    contentLength: job.size,
    headers: { "content-disposition": `attachment; filename="${name}"` }
  })
})

export const routes = HttpRouter.empty.pipe(
  HttpRouter.post("/api/v1/admin/export", authed.admin(startExport)),
  HttpRouter.get("/api/v1/admin/export", authed.admin(listExports)),
  HttpRouter.get("/api/v1/admin/export/:name", authed.admin(download))
)
