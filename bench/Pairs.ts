/**
 * Interleaved pairs, shared by bench/ratios.ts and bench/pagescale.ts: the service and one or more bare baselines
 * measured with wrk in the same run, in rounds (service, bare, service, bare, ... with one baseline; with two, each
 * round runs the first baseline, the service, then the second, so that each baseline run is next to the service run
 * it is compared with), so that the machine's load weighs on all alike. The ratio of a round is service req/s over
 * the baseline's req/s; the figure is the median of the rounds, printed with min and max, p99 latencies, errors and
 * the CPU time per request of each server's processes.
 *
 * Environment: BENCH_PAIRS (3), BENCH_SECONDS per run (10), BENCH_WARMUP_SECONDS (3), BENCH_CONNECTIONS (50),
 * BENCH_THREADS (2).
 */
import { median, processTree, type Running, treeReading, wrk, type WrkResult } from "./lib.ts"

export interface PairSettings {
  readonly pairs: number
  readonly seconds: number
  readonly warmup: number
  readonly connections: number
  readonly threads: number
}

/** Read when called (bench/run.ts sets BENCH_QUICK's defaults before a part starts). */
export const pairSettings = (): PairSettings => ({
  pairs: Number(process.env.BENCH_PAIRS ?? 3),
  seconds: Number(process.env.BENCH_SECONDS ?? 10),
  warmup: Number(process.env.BENCH_WARMUP_SECONDS ?? 3),
  connections: Number(process.env.BENCH_CONNECTIONS ?? 50),
  threads: Number(process.env.BENCH_THREADS ?? 2)
})

/** wrk against `url` for `seconds` with the settings' threads and connections. */
export const wrkLoad = (settings: PairSettings, url: string, extra: { readonly headers?: ReadonlyArray<string>; readonly script?: string } = {}) =>
  (seconds: number) => wrk(url, { seconds, connections: settings.connections, threads: settings.threads, ...extra })

export interface Measured extends WrkResult {
  /** CPU time (user + system) of the server's processes per request, in microseconds. */
  readonly cpuUs: number
}

/**
 * wrk against one server, with the CPU its processes used meanwhile: throughput depends on what else the machine
 * runs, CPU per request much less, so it is the figure to compare changes with on a busy machine.
 */
export const measured = (server: Running, run: (seconds: number) => WrkResult) => (seconds: number): Measured => {
  const pids = processTree(server.pid)
  const before = treeReading(pids).cpu
  const result = run(seconds)
  const cpu = treeReading(pids).cpu - before
  return { ...result, cpuUs: result.requests > 0 ? (cpu * 1e6) / result.requests : Number.NaN }
}

export interface Stats {
  readonly min: number
  readonly median: number
  readonly max: number
}

export const stats = (values: ReadonlyArray<number>): Stats => ({
  min: Math.min(...values),
  median: median(values),
  max: Math.max(...values)
})

export const fmt = (n: number, digits = 0) => Number.isFinite(n) ? n.toFixed(digits) : "-"

/** One server's figures over the rounds. */
export interface Side {
  readonly rps: Stats
  readonly cpuUs: Stats
  readonly p99: Stats
  readonly errors: number
}

const side = (runs: ReadonlyArray<Measured>): Side => ({
  rps: stats(runs.map((r) => r.rps)),
  cpuUs: stats(runs.map((r) => r.cpuUs)),
  p99: stats(runs.map((r) => r.p99)),
  errors: runs.reduce((a, r) => a + r.errors + r.non2xx, 0)
})

export interface Baseline {
  /** How the baseline is named in the output ("bare", "one SELECT", ...). */
  readonly label: string
  readonly run: (seconds: number) => Measured
  /** The least median ratio the target allows; none: the ratio is reported, not judged. */
  readonly target?: number
}

export interface Compared {
  readonly name: string
  readonly service: Side
  readonly baselines: ReadonlyArray<{ readonly label: string; readonly bare: Side; readonly ratio: Stats; readonly target?: number; readonly met?: boolean }>
}

const described = (label: string, m: Measured) =>
  `${label} ${fmt(m.rps)} req/s (p50 ${fmt(m.p50, 1)} ms, p99 ${fmt(m.p99, 1)} ms, errors ${m.errors + m.non2xx}, ${fmt(m.cpuUs)} µs CPU/request)`

const row = (s: Stats, digits = 0) => ({ min: fmt(s.min, digits), median: fmt(s.median, digits), max: fmt(s.max, digits) })

/**
 * Warms up every server, then runs `settings.pairs` rounds; prints each round, a table of min / median / max, and
 * each ratio against its target.
 */
export const compare = (name: string, service: (seconds: number) => Measured, baselines: ReadonlyArray<Baseline>, settings: PairSettings): Compared => {
  console.log(`\n${name}: warming up ${baselines.length === 1 ? "both servers" : `all ${baselines.length + 1} servers`} (${settings.warmup} s each)`)
  service(settings.warmup)
  for (const b of baselines) b.run(settings.warmup)
  const before = Math.floor(baselines.length / 2)
  const serviceRuns: Array<Measured> = []
  const bareRuns: Array<Array<Measured>> = baselines.map(() => [])
  const one = baselines.length === 1
  for (let i = 0; i < settings.pairs; i++) {
    const round: Array<Measured | undefined> = baselines.map(() => undefined)
    for (let j = 0; j < before; j++) round[j] = baselines[j].run(settings.seconds)
    const s = service(settings.seconds)
    for (let j = before; j < baselines.length; j++) round[j] = baselines[j].run(settings.seconds)
    serviceRuns.push(s)
    const parts = baselines.map((b, j) => {
      const m = round[j]!
      bareRuns[j].push(m)
      return `${described(b.label, m)}; ratio${one ? "" : ` vs ${b.label}`} ${fmt(s.rps / m.rps, 3)}`
    })
    console.log(`  ${one ? "pair" : "round"} ${i + 1}: ${described("service", s)}; ${parts.join("; ")}`)
  }
  const compared: Compared = {
    name,
    service: side(serviceRuns),
    baselines: baselines.map((b, j) => {
      const ratio = stats(serviceRuns.map((s, i) => s.rps / bareRuns[j][i].rps))
      return {
        label: b.label,
        bare: side(bareRuns[j]),
        ratio,
        ...(b.target === undefined ? {} : { target: b.target, met: ratio.median >= b.target })
      }
    })
  }
  const table: Record<string, ReturnType<typeof row>> = { "service req/s": row(compared.service.rps) }
  for (const b of compared.baselines) table[`${b.label} req/s`] = row(b.bare.rps)
  table["service p99 ms"] = row(compared.service.p99, 1)
  for (const b of compared.baselines) table[`${b.label} p99 ms`] = row(b.bare.p99, 1)
  table["service µs CPU/req"] = row(compared.service.cpuUs)
  for (const b of compared.baselines) table[`${b.label} µs CPU/req`] = row(b.bare.cpuUs)
  for (const b of compared.baselines) table[one ? "ratio" : `ratio vs ${b.label}`] = row(b.ratio, 3)
  console.table(table)
  for (const b of compared.baselines) {
    const judged = b.target === undefined ? "(no target)" : `(target >= ${b.target}): ${b.met ? "met" : "NOT met"}`
    console.log(`  ${name}${one ? "" : ` / ${b.label}`}: ratio ${fmt(b.ratio.median, 3)} ${judged}`)
  }
  return compared
}
