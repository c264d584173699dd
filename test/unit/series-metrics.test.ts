// The hot-path counters and histograms write the same exposition text as
// prom-client's own Counter and Histogram given the same calls.
import { Counter, Histogram, Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { createMetrics } from "../../src/observability/index.js";
import { SeriesCounter, SeriesHistogram } from "../../src/observability/series-metrics.js";

const buckets = [0.001, 0.01, 0.1, 1];
// Values on, between, below and above the bounds.
const observations: [string, string, number][] = [
  ["a", "http", 0.0005],
  ["a", "http", 0.001],
  ["a", "http", 0.005],
  ["a", "grpc", 0.1],
  ["b", "http", 2.5],
  ["a", "http", 0.01],
  ["b", "http", 1],
];

describe("SeriesCounter and SeriesHistogram", () => {
  it("write what prom-client's Counter and Histogram write for the same calls", async () => {
    const ours = new Registry();
    const reference = new Registry();
    const counter = new SeriesCounter({
      name: "calls_total",
      help: "Calls.",
      labelNames: ["endpoint", "protocol"],
      registers: [ours],
    });
    const histogram = new SeriesHistogram({
      name: "call_seconds",
      help: "Call time.",
      labelNames: ["endpoint", "protocol"],
      buckets,
      registers: [ours],
    });
    const refCounter = new Counter({
      name: "calls_total",
      help: "Calls.",
      labelNames: ["endpoint", "protocol"],
      registers: [reference],
    });
    const refHistogram = new Histogram({
      name: "call_seconds",
      help: "Call time.",
      labelNames: ["endpoint", "protocol"],
      buckets,
      registers: [reference],
    });
    for (const [endpoint, protocol, seconds] of observations) {
      // Label objects in either key order find the same series.
      counter.series({ protocol, endpoint }).inc();
      histogram.series({ endpoint, protocol }).observe(seconds);
      refCounter.inc({ endpoint, protocol });
      refHistogram.observe({ endpoint, protocol }, seconds);
    }
    expect(await ours.metrics()).toBe(await reference.metrics());
  });

  it("counts by hand: 3 of 5 observations at or under 0.01", async () => {
    const registry = new Registry();
    const histogram = new SeriesHistogram({
      name: "t",
      help: "T.",
      labelNames: ["k"],
      buckets: [0.01],
      registers: [registry],
    });
    const series = histogram.series({ k: "x" });
    for (const v of [0.001, 0.01, 0.005, 0.5, 3]) series.observe(v);
    const text = await registry.metrics();
    expect(text).toContain('t_bucket{le="0.01",k="x"} 3\n');
    expect(text).toContain('t_bucket{le="+Inf",k="x"} 5\n');
    expect(text).toContain('t_count{k="x"} 5');
    expect(text).toMatch(/t_sum\{k="x"\} 3\.516/);
  });
});

describe("createMetrics", () => {
  it("counts calls by endpoint, protocol and code, and cache events by endpoint", async () => {
    const metrics = createMetrics({ processMetrics: false });
    metrics.recordCall("e", "http", "ok", 0.002);
    metrics.recordCall("e", "http", "ok", 0.004);
    metrics.recordCall("e", "grpc", "invalid_argument", 0.5);
    metrics.countCacheEvent("e", "hit");
    metrics.countCacheEvent("e", "hit");
    metrics.countCacheEvent("f", "miss");
    const text = await metrics.registry.metrics();
    expect(text).toContain('sqe_requests_total{endpoint="e",protocol="http",code="ok"} 2\n');
    expect(text).toContain('sqe_requests_total{endpoint="e",protocol="grpc",code="invalid_argument"} 1\n');
    expect(text).toContain('sqe_request_duration_seconds_count{endpoint="e",protocol="http"} 2\n');
    expect(text).toContain('sqe_request_duration_seconds_bucket{le="0.005",endpoint="e",protocol="http"} 2\n');
    expect(text).toContain('sqe_request_duration_seconds_bucket{le="0.25",endpoint="e",protocol="grpc"} 0\n');
    expect(text).toContain('sqe_cache_events_total{endpoint="e",event="hit"} 2\n');
    expect(text).toContain('sqe_cache_events_total{endpoint="f",event="miss"} 1\n');
  });
});
