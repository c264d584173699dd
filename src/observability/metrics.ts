// Prometheus metrics of the service (prom-client), on a registry of its own
// so that tests and several apps in one process do not share counters.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import { SeriesCounter, SeriesHistogram, type CounterSeries, type HistogramSeries } from "./series-metrics.js";

export interface Metrics {
  registry: Registry;
  /** Calls by endpoint, protocol (http, connect, grpc, grpc-web) and code. */
  requests: SeriesCounter<"endpoint" | "protocol" | "code">;
  requestDuration: SeriesHistogram<"endpoint" | "protocol">;
  warehouseQueryDuration: Histogram<"endpoint">;
  warehouseQueryErrors: Counter<"endpoint" | "code">;
  /** Calls refused because their query ran past a read limit, by endpoint and limit (`max_rows_to_read`, `max_bytes_to_read`). */
  readLimitRefusals: Counter<"endpoint" | "limit">;
  cacheEvents: SeriesCounter<"endpoint" | "event">;
  cacheEntries: Gauge;
  cacheBytes: Gauge;
  /** Watch streams open now (WatchHubOptions.onOpenStreams). Warehouse queries by endpoint: warehouseQueryDuration's count. */
  watchStreams: Gauge;
  /** Counts one call and its duration. Series are kept by label, so a repeated call allocates nothing. */
  recordCall(endpoint: string, protocol: string, code: string, seconds: number): void;
  /** Counts one result-cache event of an endpoint. */
  countCacheEvent(endpoint: string, event: string): void;
  /** Calls by caller (a key id or token subject, never a secret) and code; past 1,000 callers the rest count as "other". */
  callerRequests: SeriesCounter<"caller" | "code">;
  /** Counts one call of `caller` that ended with `code`. */
  countCaller(caller: string, code: string): void;
  /** Calls of the call log dropped with their aggregate because it was full, by caller; past 1,000 callers the rest count as "other". */
  callLogDroppedRows: Counter<"caller">;
  /** Counts `rows` calls of `caller` dropped from the call log. */
  countCallLogDrops(caller: string, rows: number): void;
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
    requests: new SeriesCounter({
      name: "sqe_requests_total",
      help: "Calls of saved-query endpoints by endpoint, protocol and result code.",
      labelNames: ["endpoint", "protocol", "code"],
      registers,
    }),
    requestDuration: new SeriesHistogram({
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
    readLimitRefusals: new Counter({
      name: "sqe_read_limit_refusals_total",
      help: "Warehouse queries stopped at a read limit, by endpoint and limit.",
      labelNames: ["endpoint", "limit"],
      registers,
    }),
    cacheEvents: new SeriesCounter({
      name: "sqe_cache_events_total",
      help: "Result cache hits, misses, refreshes, refresh failures and evictions.",
      labelNames: ["endpoint", "event"],
      registers,
    }),
    callerRequests: new SeriesCounter({
      name: "sqe_caller_requests_total",
      help: "Calls of saved-query endpoints by caller (API key id or token subject) and result code.",
      labelNames: ["caller", "code"],
      registers,
    }),
    callLogDroppedRows: new Counter({
      name: "sqe_call_log_dropped_rows_total",
      help: "Calls of the call log dropped, by caller, because it held CALL_LOG_MAX_ROWS aggregates (the warehouse was down or slow, or too many callers); an aggregate of the oldest minute, of the caller holding the most there, goes first.",
      labelNames: ["caller"],
      registers,
    }),
    cacheEntries: new Gauge({ name: "sqe_cache_entries", help: "Results held in the cache.", registers }),
    cacheBytes: new Gauge({ name: "sqe_cache_bytes", help: "Bytes of results held in the cache.", registers }),
    watchStreams: new Gauge({ name: "sqe_watch_streams", help: "Watch streams open.", registers }),
  };
  // endpoint -> protocol -> the call's series; Map lookups by strings the callers already hold.
  const calls = new Map<string, Map<string, { duration: HistogramSeries; codes: Map<string, CounterSeries> }>>();
  const cacheEvents = new Map<string, Map<string, CounterSeries>>();
  const callers = new Map<string, Map<string, CounterSeries>>();
  const droppingCallers = new Set<string>();
  return {
    ...metrics,
    recordCall(endpoint, protocol, code, seconds) {
      let byProtocol = calls.get(endpoint);
      if (byProtocol === undefined) calls.set(endpoint, (byProtocol = new Map()));
      let call = byProtocol.get(protocol);
      if (call === undefined) {
        call = { duration: metrics.requestDuration.series({ endpoint, protocol }), codes: new Map() };
        byProtocol.set(protocol, call);
      }
      let counter = call.codes.get(code);
      if (counter === undefined)
        call.codes.set(code, (counter = metrics.requests.series({ endpoint, protocol, code })));
      counter.inc();
      call.duration.observe(seconds);
    },
    countCaller(caller, code) {
      const name = callers.has(caller) || callers.size < 1000 ? caller : "other";
      let byCode = callers.get(name);
      if (byCode === undefined) callers.set(name, (byCode = new Map()));
      let counter = byCode.get(code);
      if (counter === undefined) byCode.set(code, (counter = metrics.callerRequests.series({ caller: name, code })));
      counter.inc();
    },
    countCallLogDrops(caller, rows) {
      const name = droppingCallers.has(caller) || droppingCallers.size < 1000 ? caller : "other";
      droppingCallers.add(name);
      metrics.callLogDroppedRows.inc({ caller: name }, rows);
    },
    countCacheEvent(endpoint, event) {
      let byEvent = cacheEvents.get(endpoint);
      if (byEvent === undefined) cacheEvents.set(endpoint, (byEvent = new Map()));
      let counter = byEvent.get(event);
      if (counter === undefined) byEvent.set(event, (counter = metrics.cacheEvents.series({ endpoint, event })));
      counter.inc();
    },
  };
}
