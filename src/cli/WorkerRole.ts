import cluster from "node:cluster"

/**
 * What a process of the service serves. `whole` is every process but SERVICE_WORKERS=split's two workers: `http`
 * listens on the port and answers every request, handing each realtime socket's upgrade to `sockets`, which holds the
 * sockets and delivers their events (layers/SocketHandoff.ts). Both are whole nodes of the cluster (every route,
 * every background program, meeting in PostgreSQL and Redis); the role only decides where connections land.
 *
 * Why split: at a few thousand users one process's thread is the limit while the machine's second core idles, and
 * delivering events is about a third of that thread (docs/performance.md). Workers sharing the port (SERVICE_WORKERS=2)
 * each keep their own caches and see every post as another node's, which cost twice the CPU per request; split keeps
 * every page, session and access row in the one process that answers HTTP, and moves only the deliveries away.
 */
export type WorkerRole = "whole" | "http" | "sockets"

/** The variable the supervisor sets for each worker it starts under SERVICE_WORKERS=split (not an operator's setting). */
export const ROLE_VARIABLE = "SERVICE_WORKER_ROLE"

export const workerRole = (): WorkerRole => {
  if (!cluster.isWorker) return "whole"
  const role = process.env[ROLE_VARIABLE]
  return role === "http" || role === "sockets" ? role : "whole"
}
