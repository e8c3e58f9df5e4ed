import { describe, expect, it } from "@effect/vitest"
import { Effect, Metric, MetricBoundaries } from "effect"
import { execFile } from "node:child_process"
import { promisify } from "node:util"
import { renderPrometheus } from "../../layers/Metrics.ts"
import { root } from "../cli/Cli.ts"

const lines = (text: string, name: string) => text.split("\n").filter((l) => l.startsWith(name))

describe("Prometheus rendering", () => {
  it.effect("always exposes the service's six families, with zeros before any sample", () =>
    Effect.gen(function*() {
      // Effect's metrics are global to a process, and test files share worker processes (vitest.config.ts): "before
      // any sample" is only true in a process of its own.
      const text = yield* Effect.promise(() =>
        promisify(execFile)(process.execPath, [
          "--import",
          "tsx",
          "--input-type=module",
          "--eval",
          "import { Effect } from 'effect'; import { renderPrometheus } from './layers/Metrics.ts'; process.stdout.write(await Effect.runPromise(renderPrometheus))"
        ], { cwd: root })
      ).pipe(Effect.map((r) => r.stdout))
      for (const name of [
        "service_http_requests_total",
        "service_http_request_duration_seconds",
        "service_db_pool_saturation_ratio",
        "service_websocket_active_connections",
        "service_http_requests_in_flight",
        "service_circuit_breaker_state_changes_total"
      ]) {
        expect(text).toContain(`# HELP ${name} `)
        expect(text).toMatch(new RegExp(`# TYPE ${name} (counter|gauge|histogram)\\n`))
      }
      expect(text).toContain("service_db_pool_saturation_ratio 0\n")
      expect(text).toContain("service_websocket_active_connections 0\n")
      expect(text).toContain("service_http_requests_in_flight 0\n")
      expect(text).toContain("service_http_request_duration_seconds_bucket{le=\"+Inf\"} 0\n")
    }))

  it.effect("renders counters with labels, gauges and cumulative histograms ending in +Inf", () =>
    Effect.gen(function*() {
      const counter = Metric.counter("test_jobs_total", { description: "Jobs done", incremental: true })
      yield* Metric.increment(Metric.tagged(counter, "status", "200"))
      yield* Metric.increment(Metric.tagged(counter, "status", "200"))
      yield* Metric.increment(Metric.tagged(counter, "status", "a \"quoted\" \\ value"))
      const gauge = Metric.gauge("test_level", { description: "A level" })
      yield* Metric.set(gauge, 0.75)
      const histogram = Metric.histogram("test_latency_seconds", MetricBoundaries.fromIterable([0.1, 1]), "Latency")
      for (const v of [0.05, 0.5, 5]) yield* Metric.update(histogram, v)

      const text = yield* renderPrometheus
      expect(text).toContain("# HELP test_jobs_total Jobs done\n# TYPE test_jobs_total counter\n")
      expect(lines(text, "test_jobs_total{")).toEqual(expect.arrayContaining([
        "test_jobs_total{status=\"200\"} 2",
        "test_jobs_total{status=\"a \\\"quoted\\\" \\\\ value\"} 1"
      ]))
      expect(text).toContain("# TYPE test_level gauge\ntest_level 0.75\n")
      expect(text).toContain("# TYPE test_latency_seconds histogram\n")
      expect(lines(text, "test_latency_seconds")).toEqual([
        "test_latency_seconds_bucket{le=\"0.1\"} 1",
        "test_latency_seconds_bucket{le=\"1\"} 2",
        "test_latency_seconds_bucket{le=\"+Inf\"} 3",
        "test_latency_seconds_sum 5.55",
        "test_latency_seconds_count 3"
      ])
      expect(text.endsWith("\n")).toBe(true)
    }))
})
