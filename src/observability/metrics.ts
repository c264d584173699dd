// Prometheus metrics of the service (prom-client), on a registry of its own
// so that tests and several apps in one process do not share counters.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";

export interface Metrics {
  registry: Registry;
  /** Calls by endpoint, protocol (http, connect, grpc, grpc-web) and code. */
  requests: Counter<"endpoint" | "protocol" | "code">;
  requestDuration: Histogram<"endpoint" | "protocol">;
  warehouseQueryDuration: Histogram<"endpoint">;
  warehouseQueryErrors: Counter<"endpoint" | "code">;
  cacheEvents: Counter<"endpoint" | "event">;
  cacheEntries: Gauge;
  cacheBytes: Gauge;
  /** Counts one call and its duration; label children are kept, so the hot path hashes no labels. */
  recordCall(endpoint: string, protocol: string, code: string, seconds: number): void;
}

export interface MetricsOptions {
  /** Add Node.js process metrics (memory, event loop, GC). Default true. */
  processMetrics?: boolean;
}

const latencyBuckets = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export function createMetrics(options: MetricsOptions = {}): Metrics {
  const registry = new Registry();
  if (options.processMetrics ?? true) collectDefaultMetrics({ register: registry });
  const registers = [registry];
  const metrics = {
    registry,
    requests: new Counter({
      name: "sqe_requests_total",
      help: "Calls of saved-query endpoints by endpoint, protocol and result code.",
      labelNames: ["endpoint", "protocol", "code"],
      registers,
    }),
    requestDuration: new Histogram({
      name: "sqe_request_duration_seconds",
      help: "Time to answer a saved-query call.",
      labelNames: ["endpoint", "protocol"],
      buckets: latencyBuckets,
      registers,
    }),
    warehouseQueryDuration: new Histogram({
      name: "sqe_warehouse_query_duration_seconds",
      help: "Wall time of warehouse queries, failed ones included.",
      labelNames: ["endpoint"],
      buckets: latencyBuckets,
      registers,
    }),
    warehouseQueryErrors: new Counter({
      name: "sqe_warehouse_query_errors_total",
      help: "Failed warehouse queries by endpoint and code.",
      labelNames: ["endpoint", "code"],
      registers,
    }),
    cacheEvents: new Counter({
      name: "sqe_cache_events_total",
      help: "Result cache hits, misses, refreshes, refresh failures and evictions.",
      labelNames: ["endpoint", "event"],
      registers,
    }),
    cacheEntries: new Gauge({ name: "sqe_cache_entries", help: "Results held in the cache.", registers }),
    cacheBytes: new Gauge({ name: "sqe_cache_bytes", help: "Bytes of results held in the cache.", registers }),
  };
  const counters = new Map<string, { inc(): void }>();
  const histograms = new Map<string, { observe(value: number): void }>();
  return {
    ...metrics,
    recordCall(endpoint, protocol, code, seconds) {
      const callKey = `${endpoint}\0${protocol}\0${code}`;
      let counter = counters.get(callKey);
      if (counter === undefined) {
        counter = metrics.requests.labels({ endpoint, protocol, code });
        counters.set(callKey, counter);
      }
      counter.inc();
      const durationKey = `${endpoint}\0${protocol}`;
      let histogram = histograms.get(durationKey);
      if (histogram === undefined) {
        histogram = metrics.requestDuration.labels({ endpoint, protocol });
        histograms.set(durationKey, histogram);
      }
      histogram.observe(seconds);
    },
  };
}
