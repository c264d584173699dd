// Cross-cutting: logging, metrics, traces and the clock.
export { createLogger, silentLogger } from "./logger.js";
export type { Logger, LogLevel } from "./logger.js";
export { systemClock, fixedClock } from "./clock.js";
export type { Clock } from "./clock.js";
export { createMetrics } from "./metrics.js";
export type { Metrics } from "./metrics.js";
export { createMetricsScrape } from "./metrics-scrape.js";
export type { MetricsScrape } from "./metrics-scrape.js";
export { startOtelTracing } from "./otel-tracing.js";
export { inSpanOf, traceAttribute, traceHeadersOf, tracesWanted } from "./tracing.js";
export type { TraceAttributes, TraceHeaders, TraceSpan, Tracing } from "./tracing.js";
