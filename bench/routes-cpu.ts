/**
 * Service CPU per request of the load simulation's hot routes one at a time (issue 31), with wrk on a channel of
 * BENCH_POSTS (1,000) posts: the page answered from the page cache, the page read (cache off), a view, team unreads
 * and GET /users/me. For choosing what to make cheaper; no target.
 *
 *   node --import tsx bench/routes-cpu.ts
 *
 * Environment: BENCH_ROUTES (names' beginnings, e.g. view,team), BENCH_PAGE_CACHES (true,false: the runs with the page cache on, then off), BENCH_SECONDS per route (5), BENCH_CONNECTIONS (20), BENCH_THREADS (2), BENCH_LOG_LEVEL (info).
 */
import { rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { pagePath, seedChannel } from "./ChannelPage.ts"
import { machine, scratchDatabase, startService, wrkPath } from "./lib.ts"
import { measured, wrkLoad } from "./Pairs.ts"

const POSTS = Number(process.env.BENCH_POSTS ?? 1000)
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5)
const settings = {
  seconds: SECONDS,
  connections: Number(process.env.BENCH_CONNECTIONS ?? 20),
  threads: Number(process.env.BENCH_THREADS ?? 2),
  pairs: 1,
  warmup: 2
}

const main = async () => {
  wrkPath()
  const database = await scratchDatabase()
  const script = join(tmpdir(), `bench-view-${process.pid}.lua`)
  const rows: Array<Record<string, string | number>> = []
  try {
    for (const cache of (process.env.BENCH_PAGE_CACHES ?? "true,false").split(",")) {
      const service = await startService(database.url, { SERVICE_PAGE_CACHE: cache })
      try {
        const data = rows.length === 0 ? await seedChannel(database.url, POSTS) : seeded!
        seeded = data
        const headers = [`Authorization: Bearer ${data.token}`]
        writeFileSync(script, `wrk.method = "POST"\nwrk.body = ${JSON.stringify(JSON.stringify({ channel_id: data.channelId }))}\nwrk.headers["Content-Type"] = "application/json"\n`)
        const routes: Array<[string, string, string | undefined]> = cache === "true"
          ? [
            ["page (cached)", pagePath(data.channelId), undefined],
            ["view", "/api/v4/channels/members/me/view", script],
            ["team unreads", "/api/v4/users/me/teams/unread", undefined],
            ["users/me", "/api/v4/users/me", undefined]
          ]
          : [["page (read)", pagePath(data.channelId), undefined]]
        const only = process.env.BENCH_ROUTES?.split(",")
        for (const [name, path, lua] of routes.filter(([name]) => only === undefined || only.some((o) => name.startsWith(o)))) {
          const run = measured(service, wrkLoad(settings, `${service.url}${path}`, { headers, script: lua }))
          run(settings.warmup)
          const m = run(SECONDS)
          rows.push({ route: name, "req/s": Math.round(m.requests / SECONDS), "service CPU µs/request": Math.round(m.cpuUs), errors: m.errors + m.non2xx })
        }
      } finally {
        await service.stop()
      }
    }
  } finally {
    await database.drop()
    rmSync(script, { force: true })
  }
  console.log(`routes, ${SECONDS} s each, wrk -c${settings.connections}; machine ${JSON.stringify(machine())}`)
  console.table(rows)
}
let seeded: Awaited<ReturnType<typeof seedChannel>> | undefined

main().then(() => process.exit(0), (error) => {
  console.error(error)
  process.exit(1)
})
