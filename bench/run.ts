/**
 * The benchmark suite (`npm run bench`; never part of `npm test`): the per-request ratios against bare baselines
 * (bench/ratios.ts), the channel page in channels of 100,000 and 1,000,000 posts against one SELECT and against its
 * own statement bare (bench/pagescale.ts), WebSocket fan-out against bare ws (bench/fanout.ts), and the load
 * simulation (bench/load.ts). Each part prints its own report; the last line is one JSON summary of all of them.
 *
 * BENCH_SUITE=ratios,pagescale,fanout,load chooses the parts (all by default); each part's own variables are
 * described in its file. BENCH_FANOUT_ARGS passes arguments to fanout.ts (sockets rounds warmup; default "1000 50 200").
 * A quick run of everything: BENCH_QUICK=1 (one pair of 3 s runs, the page at 20,000 posts only, 200 sockets, two
 * small load levels).
 */
import { spawn } from "node:child_process"
import { machine, ROOT, wrkPath } from "./lib.ts"

const quick = process.env.BENCH_QUICK === "1"
if (quick) {
  const defaults: Record<string, string> = {
    BENCH_PAIRS: "1",
    BENCH_SECONDS: "3",
    BENCH_WARMUP_SECONDS: "1",
    BENCH_PAGE_SCALES: "20000",
    BENCH_FANOUT_ARGS: "200 20 50",
    BENCH_LOAD_LEVELS: "100,300",
    BENCH_LOAD_SECONDS: "10",
    BENCH_LOAD_WARMUP_SECONDS: "3"
  }
  for (const [k, v] of Object.entries(defaults)) process.env[k] ??= v
}
const parts = (process.env.BENCH_SUITE ?? "ratios,pagescale,fanout,load").split(",")

/** fanout.ts runs as its own process (it measures its own heap) and prints text; its two ratios are read back. */
const runFanout = () =>
  new Promise<Record<string, number | string>>((resolve, reject) => {
    const args = (process.env.BENCH_FANOUT_ARGS ?? "1000 50 200").split(" ").filter((a) => a !== "")
    const child = spawn(process.execPath, ["--import", "tsx", "bench/fanout.ts", ...args], { cwd: ROOT, stdio: ["ignore", "pipe", "inherit"] })
    let out = ""
    child.stdout.on("data", (chunk: Buffer) => {
      process.stdout.write(chunk)
      out += chunk.toString()
    })
    child.on("exit", (code) => {
      if (code !== 0) return reject(new Error(`fanout.ts exited with ${code}`))
      const p99 = /p99 ratio ([\d.]+)/.exec(out)?.[1]
      const memory = /memory ratio, marginal ([\d.]+)/.exec(out)?.[1]
      resolve({ sockets: Number(args[0] ?? 1000), p99Ratio: Number(p99), memoryRatio: Number(memory), target: "<= 2 each" })
    })
  })

const main = async () => {
  wrkPath()
  const summary: Record<string, unknown> = { machine: machine() }
  if (parts.includes("ratios")) {
    const { runRatios } = await import("./ratios.ts")
    summary.ratios = await runRatios()
  }
  if (parts.includes("pagescale")) {
    console.log("\nthe channel page at scale (bench/pagescale.ts)")
    const { runPageScale } = await import("./pagescale.ts")
    summary.pagescale = await runPageScale()
  }
  if (parts.includes("fanout")) {
    console.log("\nfan-out (bench/fanout.ts)")
    summary.fanout = await runFanout()
  }
  if (parts.includes("load")) {
    console.log("\nload simulation (bench/load.ts)")
    const { runLoad } = await import("./load.ts")
    summary.load = await runLoad()
  }
  summary.loadAfter = machine().load
  console.log("\nsummary")
  console.log(JSON.stringify(summary))
}

main().then(() => process.exit(0), (error) => {
  console.error(error)
  process.exit(1)
})
