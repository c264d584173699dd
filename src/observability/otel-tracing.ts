// Tracing on OpenTelemetry's own Node SDK, configured by the standard OTEL_*
// variables (exporter endpoint and protocol, service name, sampler, batch
// processor). The packages are imported here, dynamically, and nowhere else:
// without an exporter endpoint this is never called and they are never loaded
// (the bundles keep them outside, scripts/build/bundle.mjs).
import type { Context, Span, Tracer } from "@opentelemetry/api";
import type { Logger } from "./logger.js";
import { inSpanOf, traceHeadersOf, type TraceAttributes, type TraceSpan, type Tracing } from "./tracing.js";

export interface OtelTracingOptions {
  /** Where export failures are reported, at most one line a minute. */
  logger: Logger;
  /** `service.name` when OTEL_SERVICE_NAME does not name one. Default `saved-query-endpoints`. */
  serviceName?: string;
  /** Shortest time between two log lines about failed exports. Default 60 000 ms. */
  failureLogIntervalMs?: number;
  /** Default: process.env (OTEL_LOG_LEVEL decides whether the SDK's own diagnostics go to the console instead). */
  env?: NodeJS.ProcessEnv;
}

interface Handle extends TraceSpan {
  readonly span: Span;
  /** The context spans started within this one descend from. */
  readonly base: Context;
  readonly call: boolean;
}

/** Starts the SDK (traces only: no metrics or logs are exported) and returns the service's view of it. */
export async function startOtelTracing(options: OtelTracingOptions): Promise<Tracing> {
  const api = await import("@opentelemetry/api");
  const { NodeSDK, resources } = await import("@opentelemetry/sdk-node");
  const env = options.env ?? process.env;
  if ((env.OTEL_LOG_LEVEL ?? "").trim() === "") reportExportFailures(api, options);
  const sdk = new NodeSDK({
    // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES, read by the SDK's detectors, are merged over this.
    resource: resources
      .defaultResource()
      .merge(resources.resourceFromAttributes({ "service.name": options.serviceName ?? "saved-query-endpoints" })),
    // Metrics are Prometheus's (/metrics) and logs are JSON lines: only traces go out over OTLP.
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [],
  });
  sdk.start();
  const tracer: Tracer = api.trace.getTracer("saved-query-endpoints");
  const callKey = api.createContextKey("saved-query-endpoints call span");

  const handle = (span: Span, base: Context, call: boolean): Handle => ({
    span,
    base,
    call,
    setAttributes: (attributes) => span.setAttributes(defined(attributes)),
    updateName: (name) => span.updateName(name),
    fail: (message) => span.setStatus({ code: api.SpanStatusCode.ERROR, message }),
    end: () => span.end(),
    traceHeaders: () => {
      const { traceId, spanId, traceFlags, traceState } = span.spanContext();
      return traceHeadersOf({ traceId, spanId, traceFlags, traceState: traceState?.serialize() });
    },
  });
  const linksOf = (links: TraceSpan[] | undefined) =>
    links?.map((link) => ({ context: (link as Handle).span.spanContext() }));
  const startChild = (name: string, attributes: TraceAttributes, links?: TraceSpan[]) => {
    const active = api.context.active();
    if (api.trace.getSpan(active) === undefined) return undefined;
    return handle(
      tracer.startSpan(name, { attributes: defined(attributes), links: linksOf(links) }, active),
      active,
      false,
    );
  };
  const within = <T>(span: TraceSpan, work: () => T): T => {
    const { base, call } = span as Handle;
    const withSpan = api.trace.setSpan(base, (span as Handle).span);
    return api.context.with(call ? withSpan.setValue(callKey, span) : withSpan, work);
  };

  return {
    startCall(name, header, attributes) {
      const parent = api.propagation.extract(api.ROOT_CONTEXT, undefined, {
        get: (_carrier, key) => header(key),
        keys: () => [],
      });
      const span = tracer.startSpan(name, { kind: api.SpanKind.SERVER, attributes: defined(attributes) }, parent);
      return handle(span, parent, true);
    },
    startRoot(name, attributes) {
      const span = tracer.startSpan(name, { root: true, attributes: defined(attributes) }, api.ROOT_CONTEXT);
      return handle(span, api.ROOT_CONTEXT, false);
    },
    startChild,
    within,
    inSpan: inSpanOf(startChild, within),
    bind: (work) => api.context.bind(api.context.active(), work),
    currentCall: () => api.context.active().getValue(callKey) as TraceSpan | undefined,
    async shutdown(timeoutMs = 2000) {
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, timeoutMs);
        timer.unref();
      });
      await Promise.race([sdk.shutdown().catch(() => {}), timedOut]);
      clearTimeout(timer);
    },
  };
}

/** `attributes` without its undefined values, which OpenTelemetry would warn about. */
function defined(attributes: TraceAttributes): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const [name, value] of Object.entries(attributes)) if (value !== undefined) out[name] = value;
  return out;
}

/**
 * The SDK reports a failed export (a receiver down, say) through its
 * diagnostics, silent by default: warnings and errors go to the service's
 * log instead, one line a minute at most, so a dead receiver is seen
 * without a line per batch. Calls never wait for an export.
 */
function reportExportFailures(api: typeof import("@opentelemetry/api"), options: OtelTracingOptions) {
  const intervalMs = options.failureLogIntervalMs ?? 60_000;
  let lastAt = Number.NEGATIVE_INFINITY;
  let dropped = 0;
  const report = (message: string, ...args: unknown[]) => {
    const now = performance.now();
    if (now - lastAt < intervalMs) {
      dropped += 1;
      return;
    }
    lastAt = now;
    const detail = [message, ...args].map(describe).join(" ");
    options.logger.warn("trace export problem", { detail, sinceLastLine: dropped });
    dropped = 0;
  };
  const ignore = () => {};
  api.diag.setLogger(
    { error: report, warn: report, info: ignore, debug: ignore, verbose: ignore },
    { logLevel: api.DiagLogLevel.WARN, suppressOverrideMessage: true },
  );
}

/** An error's message: the SDK hands some as the JSON of the error, stack included. */
function describe(value: unknown): string {
  if (value instanceof Error) return value.message;
  const text = String(value);
  if (!text.startsWith("{")) return text;
  try {
    const parsed = JSON.parse(text) as { message?: unknown };
    return typeof parsed.message === "string" ? parsed.message : text;
  } catch {
    return text;
  }
}
