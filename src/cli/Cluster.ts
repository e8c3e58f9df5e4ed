import { Data, Deferred, Duration, Effect, Exit, Runtime } from "effect"
import cluster, { type Worker } from "node:cluster"
import { Socket } from "node:net"
import { constants } from "node:os"
import * as DbLayer from "../../layers/Db.ts"
import * as Migrations from "../../layers/Migrations.ts"
import type { ResolvedConfig } from "../Config.ts"
import { isHandoff } from "../../layers/SocketHandoff.ts"
import { ROLE_VARIABLE, type WorkerRole } from "./WorkerRole.ts"

/**
 * SERVICE_WORKERS > 1: this process becomes a supervisor of that many worker processes, each a whole node of the
 * service (its own event loop, node id, caches and sockets) on the same port, through node:cluster (the supervisor
 * accepts connections and hands them to the workers in turn). One Node process runs JavaScript on one core; workers
 * let a machine's other cores serve. They meet in PostgreSQL and Redis exactly as nodes on different machines do
 * (the configuration refuses workers without both), so nothing else about the service changes.
 *
 * SERVICE_WORKERS=split starts two workers with roles (src/cli/WorkerRole.ts): the first listens and answers HTTP,
 * the second holds the realtime sockets, which the first hands over through this process (it alone has a channel to
 * both).
 *
 * The supervisor:
 * - applies migrations once, before any worker starts, so the workers do not queue on the migrator's lock;
 * - starts the workers; a worker that exits before it ever listened is a start-up failure (bad configuration,
 *   a database that refuses it...): the supervisor stops the others and exits 1, as a single process would;
 * - replaces a worker that exits after it served (a crash, an out-of-memory kill), with a growing delay while
 *   replacements keep failing, so a crash loop does not spin a core;
 * - on SIGTERM/SIGINT passes SIGTERM to every worker and waits for them (each drains, serving while its readiness
 *   answers 503, then stops, within its own SERVICE_SHUTDOWN_DEADLINE_MS); a worker that did not stop cleanly makes
 *   the supervisor exit 1.
 */
export class WorkerStartFailed extends Data.TaggedError("WorkerStartFailed")<{ readonly message: string }> {}

/** How long after SIGTERM the supervisor waits beyond a worker's own deadline before killing it. */
const KILL_MARGIN = Duration.seconds(5)
/** A worker that served this long before it exited restarts without delay; one that failed sooner backs off. */
const HEALTHY_RUN = Duration.minutes(1)
/** The delay before replacing a worker that keeps failing: 1 s, 2 s, 4 s... up to 30 s. */
const delayFor = (failures: number) => Math.min(30_000, 1_000 * 2 ** Math.max(0, failures - 1))

const migrateOnce = (config: ResolvedConfig) =>
  Migrations.run.pipe(
    Effect.provide(DbLayer.layer({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, maxConnections: 2, minConnections: 0 }))
  )

interface Slot {
  worker: Worker
  startedAt: number
  listened: boolean
  /** Consecutive runs shorter than HEALTHY_RUN. */
  failures: number
  exited: Promise<number>
}

const exitOf = (worker: Worker) =>
  new Promise<number>((resolve) => worker.once("exit", (code, signal) => resolve(signal === null ? code : 128 + (constants.signals[signal as keyof typeof constants.signals] ?? 0))))

export const supervise = (config: ResolvedConfig) =>
  Effect.gen(function*() {
    // A worker started with SIGTERM already on its way, or a second signal (a service manager signals the whole
    // group, then this process forwards it), must not take the default action (exit at once, mid-stop): the stop
    // under way and its deadline decide.
    for (const signal of ["SIGTERM", "SIGINT"] as const) process.on(signal, () => {})
    yield* migrateOnce(config)
    yield* Effect.logInfo(`starting ${config.workers} worker processes`)
    const runtime = yield* Effect.runtime<never>()
    const log = (effect: Effect.Effect<void>) => Runtime.runFork(runtime)(effect)
    const failed = yield* Deferred.make<never, WorkerStartFailed>()
    const slots: Array<Slot> = []
    let stopping = false
    const split = config.workersSetting === "split"

    /**
     * A socket the HTTP worker handed over goes on to the sockets worker (layers/SocketHandoff.ts); while that
     * worker is not listening (starting, or being replaced) the connection closes, and its client reconnects.
     */
    const forward = (message: unknown, handle: unknown) => {
      if (!isHandoff(message) || !(handle instanceof Socket)) return
      const target = slots[1]
      if (stopping || target === undefined || !target.listened || !target.worker.isConnected()) return void handle.destroy()
      target.worker.send(message, handle, { keepOpen: true }, () => handle.destroy())
    }

    // SERVICE_WORKERS=split: worker 0 answers HTTP and worker 1 holds the sockets, whichever replaced them.
    const roleOf = (index: number): WorkerRole => !split ? "whole" : index === 0 ? "http" : "sockets"
    const start = (index: number, failures: number) => {
      const role = roleOf(index)
      const worker = cluster.fork(role === "whole" ? {} : { [ROLE_VARIABLE]: role })
      if (role === "http") worker.on("message", forward)
      const slot: Slot = { worker, startedAt: performance.now(), listened: false, failures, exited: exitOf(worker) }
      slots[index] = slot
      worker.once("listening", () => {
        slot.listened = true
        log(Effect.logInfo("worker listening").pipe(Effect.annotateLogs({ worker: index, pid: worker.process.pid, ...(role === "whole" ? {} : { role }) })))
      })
      void slot.exited.then((code) => {
        if (stopping) return
        if (!slot.listened) {
          Deferred.unsafeDone(failed, Exit.fail(new WorkerStartFailed({ message: `worker ${index} exited with code ${code} before it listened` })))
          return
        }
        const healthy = performance.now() - slot.startedAt >= Duration.toMillis(HEALTHY_RUN)
        const next = healthy ? 0 : slot.failures + 1
        const delay = next === 0 ? 0 : delayFor(next)
        log(Effect.logError(`worker exited with code ${code}; replacing it in ${delay} ms`).pipe(
          Effect.annotateLogs({ worker: index, pid: worker.process.pid })
        ))
        setTimeout(() => stopping || start(index, next), delay)
      })
    }

    const stopAll = Effect.gen(function*() {
      stopping = true
      const running = slots.filter((slot) => slot.worker.process.exitCode === null && slot.worker.process.signalCode === null)
      for (const slot of running) slot.worker.process.kill("SIGTERM")
      const deadline = Duration.sum(Duration.millis(config.shutdownDeadlineMs), KILL_MARGIN)
      const codes = yield* Effect.promise(() => Promise.all(slots.map((slot) => slot.exited))).pipe(
        Effect.timeoutTo({
          duration: deadline,
          onSuccess: (codes) => codes,
          onTimeout: () => {
            for (const slot of slots) slot.worker.process.kill("SIGKILL")
            return undefined
          }
        })
      )
      if (codes === undefined) return yield* Effect.dieMessage(`workers did not stop within ${Duration.format(deadline)} of SIGTERM: killed`)
      // A worker still starting has no stop handler yet: SIGTERM ends it at once, with nothing to finish or hand over.
      const unclean = codes.flatMap((code, index) =>
        code === 0 || !slots[index].listened ? [] : [`worker ${index} exited with code ${code}`]
      )
      if (unclean.length > 0) return yield* Effect.dieMessage(`a worker did not stop cleanly: ${unclean.join(", ")}`)
      yield* Effect.logInfo("all workers stopped")
    })

    yield* Effect.acquireRelease(
      Effect.sync(() => {
        for (let index = 0; index < config.workers; index++) start(index, 0)
      }),
      () => stopAll
    )
    return yield* Deferred.await(failed)
  }).pipe(Effect.scoped)
