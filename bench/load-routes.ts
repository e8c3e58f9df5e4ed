/**
 * CPU per request of each load-simulation route on its own, on the load simulation's data (bench/LoadData.ts: users
 * in channels of 50-200 members, every user in five): the service's CPU (/proc) over a fixed number of requests sent
 * at a fixed concurrency, each route in turn, in `BENCH_ROUTE_ROUNDS` rounds whose medians are printed. Unlike
 * bench/routes-cpu.ts (one user, one channel, wrk), the requests spread over the users and their channels as the
 * load's do: the pages are those of many channels, each view switches channels and so writes, and posts are
 * measured too (without sockets: their delivery is bench/fanout.ts's). A quicker and steadier reading than the load
 * simulation of what a change to one route costs or saves; the load simulation stays the judge of the whole.
 *
 *   node --import tsx bench/load-routes.ts
 *
 * Environment: BENCH_ROUTE_REQUESTS per route and round (4000), BENCH_ROUTE_CONCURRENCY (32), BENCH_ROUTE_USERS
 * (1000), BENCH_ROUTE_ROUNDS (3), BENCH_ROUTE_ONLY (a comma list of the names below), BENCH_PAGE_CACHE (true; false
 * reads every page), BENCH_PG_URL. Alternate runs with the checkout before a change to read its effect.
 */
import { Pool } from "undici"
import { machine, median, processTree, scratchDatabase, startService, treeReading, type Running } from "./lib.ts"
import { seed, type User } from "./LoadData.ts"

const REQUESTS = Number(process.env.BENCH_ROUTE_REQUESTS ?? 4000)
const CONCURRENCY = Number(process.env.BENCH_ROUTE_CONCURRENCY ?? 32)
const USERS = Number(process.env.BENCH_ROUTE_USERS ?? 1000)
const ROUNDS = Number(process.env.BENCH_ROUTE_ROUNDS ?? 3)
const ONLY = process.env.BENCH_ROUTE_ONLY?.split(",")
if (!(REQUESTS > 0 && CONCURRENCY > 0 && USERS >= 10 && ROUNDS > 0)) throw new Error("BENCH_ROUTE_*: positive numbers (users at least 10)")

interface Route {
  readonly name: string
  readonly request: (u: User, i: number) => { method: "GET" | "POST"; path: string; body?: unknown }
}

const allRoutes: ReadonlyArray<Route> = [
  { name: "users/me", request: () => ({ method: "GET", path: "/api/v4/users/me" }) },
  { name: "page", request: (u) => ({ method: "GET", path: `/api/v4/channels/${u.current}/posts?page=0&per_page=60` }) },
  { name: "older page", request: (u) => ({ method: "GET", path: `/api/v4/channels/${u.current}/posts?page=1&per_page=60` }) },
  {
    name: "view",
    request: (u, i) => {
      const previous = u.current
      u.current = u.channels[i % u.channels.length]
      return { method: "POST", path: "/api/v4/channels/members/me/view", body: { channel_id: u.current, prev_channel_id: previous } }
    }
  },
  { name: "unread", request: () => ({ method: "GET", path: "/api/v4/users/me/teams/unread" }) },
  { name: "post", request: (u, i) => ({ method: "POST", path: "/api/v4/posts", body: { channel_id: u.current, message: `route ${i} a message of ordinary length for the bench` } }) }
]
const routes = allRoutes.filter((r) => ONLY === undefined || ONLY.includes(r.name))
if (routes.length === 0) throw new Error(`BENCH_ROUTE_ONLY: none of ${allRoutes.map((r) => r.name).join(", ")}`)

const cpuOf = (service: Running) => treeReading(processTree(service.pid)).cpu

const run = async (pool: Pool, users: ReadonlyArray<User>, route: Route) => {
  let next = 0
  let errors = 0
  const one = (i: number) =>
    new Promise<void>((resolve) => {
      const user = users[i % users.length]
      const r = route.request(user, i)
      const body = r.body === undefined ? null : JSON.stringify(r.body)
      let status = 0
      pool.dispatch({
        path: r.path, method: r.method, body,
        headers: body === null ? { authorization: `Bearer ${user.token}` } : { authorization: `Bearer ${user.token}`, "content-type": "application/json" }
      }, {
        onRequestStart: () => {},
        onResponseStart: (_c, statusCode) => {
          status = statusCode
        },
        onResponseData: () => {},
        onResponseEnd: () => {
          if (status >= 400) errors++
          resolve()
        },
        onResponseError: () => {
          errors++
          resolve()
        }
      })
    })
  const worker = async () => {
    while (next < REQUESTS) await one(next++)
  }
  await Promise.all(Array.from({ length: CONCURRENCY }, worker))
  return errors
}

const main = async () => {
  const database = await scratchDatabase()
  let service: Running | undefined
  try {
    service = await startService(database.url, { SERVICE_PAGE_CACHE: process.env.BENCH_PAGE_CACHE ?? "true" })
    const seeded = await seed(database.url, USERS, 5)
    const users = seeded.users
    for (const u of users) u.current = u.channels[0]
    const pool = new Pool(service.url, { connections: CONCURRENCY, pipelining: 1 })
    console.log(`load routes: ${USERS} users, ${REQUESTS} requests per route and round at concurrency ${CONCURRENCY}; machine ${JSON.stringify(machine())}`)
    // Warm-up: every route once over, so caches and compiled code are as in a running service.
    for (const route of routes) await run(pool, users, route)
    console.log("warmed up; measuring")
    const results = new Map<string, Array<number>>()
    for (let round = 0; round < ROUNDS; round++) {
      for (const route of routes) {
        const before = cpuOf(service)
        const started = performance.now()
        const errors = await run(pool, users, route)
        const seconds = (performance.now() - started) / 1000
        const us = (cpuOf(service) - before) / REQUESTS * 1e6
        results.set(route.name, [...(results.get(route.name) ?? []), us])
        console.log(`  round ${round + 1} ${route.name}: ${us.toFixed(0)} µs CPU/request, ${(REQUESTS / seconds).toFixed(0)} req/s, ${errors} errors`)
        if (errors > 0) throw new Error(`${route.name}: ${errors} errors`)
      }
    }
    console.log(JSON.stringify({ benchmark: "load-routes", machine: machine(), medians: Object.fromEntries([...results].map(([k, v]) => [k, Math.round(median(v))])) }))
    await pool.close()
  } finally {
    await service?.stop()
    await database.drop()
  }
}

await main()
