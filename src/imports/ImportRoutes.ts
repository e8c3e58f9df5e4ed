import { HttpRouter, HttpServerRequest } from "@effect/platform"
import { Effect, Stream } from "effect"
import { once } from "node:events"
import { createWriteStream } from "node:fs"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { newId } from "../../layers/Crypto.ts"
import { ImportJobs as ImportJobsPage, ImportJobsQuery } from "../../schemas/native/ConsoleReports.ts"
import { DryRunQuery, ImportIdParams, ImportJob, StartImport } from "../../schemas/native/Import.ts"
import { authed, CurrentCaller } from "../auth/Guards.ts"
import { AppConfig } from "../Config.ts"
import { badRequest, notFound } from "../http/ApiError.ts"
import * as Decode from "../http/Decode.ts"
import * as RequestBody from "../http/RequestBody.ts"
import { respondWith } from "../http/Respond.ts"
import { teamNameProblem } from "../teams/TeamValidation.ts"
import * as ImportJobs from "./ImportJobs.ts"

/**
 * POST /api/v1/admin/import starts a Mattermost bulk import (or, with format=slack and team=NAME, a Slack workspace
 * export's import into that team) as a job and answers 201 with it; GET
 * /api/v1/admin/import/{id} shows its progress, counts and problems. System administrators only. The file is either
 * the request body (a .zip or .jsonl, any content type but JSON; `?dry_run=true` to validate only), streamed to disk
 * under SERVICE_DATA_DIR/imports and removed when the job ends, or, with a JSON body `{"path": ..., "dry_run": ...}`,
 * a file the operator put in SERVICE_DATA_DIR/imports: the path is resolved (symbolic links included) and refused
 * unless it stays inside that folder, so the API never reads any other file of the server.
 */
const importsDir = Effect.map(AppConfig, (config) => path.resolve(config.dataDir, "imports"))

const badPath = () =>
  badRequest("api.import.path.app_error", "The path must name a file inside the imports folder of the data directory (SERVICE_DATA_DIR/imports).")

/** The real path of a file inside the imports folder, or a 400. */
const serverSideFile = (given: string) =>
  Effect.gen(function*() {
    const dir = yield* importsDir
    const real = yield* Effect.promise(async () => {
      try {
        const [base, file] = await Promise.all([fs.realpath(dir), fs.realpath(path.resolve(dir, given))])
        const stat = await fs.stat(file)
        return stat.isFile() && file.startsWith(base + path.sep) ? file : undefined
      } catch {
        return undefined
      }
    })
    return real === undefined ? yield* badPath() : real
  })

/** Streams the request body into a new file of the imports folder. */
const receiveUpload = (id: string) =>
  Effect.gen(function*() {
    const dir = yield* importsDir
    yield* Effect.promise(() => fs.mkdir(dir, { recursive: true }))
    const file = path.join(dir, `upload-${id}`)
    const out = createWriteStream(file)
    const body = yield* RequestBody.stream
    const size = yield* body.pipe(
      Stream.runFoldEffect(0, (total, chunk) =>
        Effect.as(Effect.promise(async () => {
          if (!out.write(chunk)) await once(out, "drain")
        }), total + chunk.length)),
      Effect.tap(() => Effect.promise(async () => {
        out.end()
        await once(out, "finish")
      })),
      Effect.tapError(() => Effect.promise(() => fs.rm(file, { force: true }).finally(() => out.destroy()))),
      Effect.mapError(() => badRequest("api.import.upload.app_error", "Unable to read the uploaded file."))
    )
    if (size === 0) {
      yield* Effect.promise(() => fs.rm(file, { force: true }))
      return yield* badRequest("api.import.upload.app_error", "The request body is empty: send the .zip or .jsonl file, or JSON naming a file on the server.")
    }
    return file
  })

/** A Slack export needs the team it goes into, with a valid name; checked before any upload is read. */
const slackTeam = (format: "mattermost" | "slack", team: string | undefined) =>
  Effect.gen(function*() {
    if (format === "mattermost") return undefined
    if (team === undefined || team === "") return yield* badRequest("api.import.team.app_error", "A Slack import needs the team it goes into: team=NAME.")
    const problem = teamNameProblem(team)
    return problem === undefined ? team : yield* badRequest("api.import.team.app_error", `team: ${problem}`)
  })

const startImport = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const request = yield* HttpServerRequest.HttpServerRequest
  const contentType = request.headers["content-type"] ?? ""
  if (contentType.startsWith("application/json")) {
    const input = yield* Decode.body(StartImport)
    const team = yield* slackTeam(input.format, input.team)
    const file = yield* serverSideFile(input.path)
    return yield* respondWith(ImportJob, yield* ImportJobs.start({ creatorId: caller.userId, path: file, uploaded: false, dryRun: input.dry_run, slackTeam: team }), 201)
  }
  const { dry_run, format, team: teamName } = yield* Decode.query(DryRunQuery)
  const team = yield* slackTeam(format, teamName)
  const id = newId()
  const file = yield* receiveUpload(id)
  return yield* respondWith(ImportJob, yield* ImportJobs.start({ id, creatorId: caller.userId, path: file, uploaded: true, dryRun: dry_run, slackTeam: team }), 201)
})

const getImport = Effect.gen(function*() {
  const { id } = yield* Decode.params(ImportIdParams)
  const job = yield* ImportJobs.find(id)
  return job === undefined ? yield* notFound("api.import.not_found.app_error", "No import job with this id.") : yield* respondWith(ImportJob, job)
})

/** GET /api/v1/admin/import: the past and running jobs, newest first, a bounded page. */
const listImports = Effect.gen(function*() {
  const q = yield* Decode.query(ImportJobsQuery)
  return yield* respondWith(ImportJobsPage, { jobs: yield* ImportJobs.list(q.page * q.per_page, q.per_page) })
})

export const routes = HttpRouter.empty.pipe(
  HttpRouter.post("/api/v1/admin/import", authed.admin(startImport)),
  HttpRouter.get("/api/v1/admin/import", authed.admin(listImports)),
  HttpRouter.get("/api/v1/admin/import/:id", authed.admin(getImport))
)
