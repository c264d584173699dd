// Traces of calls, as the rest of the service sees them (docs/observability.md):
// a few span operations behind one interface, so that only otel-tracing.ts
// names OpenTelemetry and its SDK is loaded only when traces are exported.
// Without tracing the stages hold `undefined` and do nothing per call.

/** Span attribute values; undefined ones are left out. */
export type TraceAttributes = Record<string, string | number | boolean | undefined>;

/** W3C Trace Context headers naming a span as the parent of what they travel with. */
export interface TraceHeaders {
  traceparent: string;
  tracestate?: string;
}

/** A span the service began. */
export interface TraceSpan {
  setAttributes(attributes: TraceAttributes): void;
  updateName(name: string): void;
  /** Marks the span failed with `message` (a caller-facing message: no SQL, no secret). */
  fail(message: string): void;
  end(): void;
  /** The headers that make this span the parent of a warehouse query's own spans. */
  traceHeaders(): TraceHeaders;
}

export interface Tracing {
  /**
   * The server span of a saved-query call: a child of the span the caller's
   * `traceparent` (with `tracestate`) names, or the root of a new trace when
   * it names none or an invalid one. `header` reads a request header.
   */
  startCall(name: string, header: (name: string) => string | undefined, attributes: TraceAttributes): TraceSpan;
  /** A span that starts a trace of its own, linked to nothing a caller sent (cache refreshes by warming). */
  startRoot(name: string, attributes: TraceAttributes): TraceSpan;
  /** A child of the current span, or undefined outside any span (nothing is traced then). */
  startChild(name: string, attributes: TraceAttributes, links?: TraceSpan[]): TraceSpan | undefined;
  /** Runs `work` with `span` current: spans started within it, across awaits, are its children. */
  within<T>(span: TraceSpan, work: () => T): T;
  /**
   * Runs `work` in a child span of the current span, current within it, ended
   * when its promise settles (failed when it rejects). Outside any span
   * `work` runs untraced, with undefined.
   */
  inSpan<T>(
    name: string,
    attributes: TraceAttributes,
    work: (span: TraceSpan | undefined) => Promise<T>,
    links?: TraceSpan[],
  ): Promise<T>;
  /** `work` bound to the current context: called later (from a stream's event), it runs with today's span current. */
  bind<F extends (...args: never[]) => unknown>(work: F): F;
  /** The server span of the call being served here, for attributes known later (code, caller, cache). */
  currentCall(): TraceSpan | undefined;
  /** Sends what is still buffered and stops; bounded by `timeoutMs`, so a dead receiver cannot hold a shutdown. */
  shutdown(timeoutMs?: number): Promise<void>;
}

/**
 * `Tracing.inSpan` made of a tracing's own `startChild` and `within`: the
 * same for every implementation (OpenTelemetry's, and the tests' recording one).
 */
export function inSpanOf(startChild: Tracing["startChild"], within: Tracing["within"]): Tracing["inSpan"] {
  return async (name, attributes, work, links) => {
    const span = startChild(name, attributes, links);
    if (span === undefined) return work(undefined);
    try {
      return await within(span, () => work(span));
    } catch (error) {
      span.fail(error instanceof Error ? error.message : String(error));
      throw error;
    } finally {
      span.end();
    }
  };
}

/** Attribute names of the service's spans (docs/observability.md lists them with examples). */
export const traceAttribute = {
  protocol: "sqe.protocol",
  endpoint: "sqe.endpoint",
  caller: "sqe.caller",
  code: "sqe.code",
  cache: "sqe.cache",
  requestId: "sqe.request_id",
  joined: "sqe.computation.joined",
  dbSystem: "db.system.name",
  dbNamespace: "db.namespace",
  queryId: "clickhouse.query_id",
  readRows: "clickhouse.read_rows",
  readBytes: "clickhouse.read_bytes",
  httpStatus: "http.response.status_code",
} as const;

/** The identity of a span as W3C Trace Context carries it. */
export interface SpanIdentity {
  /** 32 lower-case hex digits, not all zero. */
  traceId: string;
  /** 16 lower-case hex digits, not all zero. */
  spanId: string;
  /** Bit 0: sampled. */
  traceFlags: number;
  /** The vendor entries of `tracestate`, serialised, if any. */
  traceState?: string;
}

/**
 * `traceparent` (version 00) and, when there is one, `tracestate` for
 * `span`: the headers ClickHouse reads to make its own spans of a query
 * children of `span`. Throws on an identity W3C does not allow, which only a
 * bug could produce.
 */
export function traceHeadersOf(span: SpanIdentity): TraceHeaders {
  if (!/^[0-9a-f]{32}$/.test(span.traceId) || /^0+$/.test(span.traceId))
    throw new Error(`trace id must be 32 lower-case hex digits, not all zero, got "${span.traceId}"`);
  if (!/^[0-9a-f]{16}$/.test(span.spanId) || /^0+$/.test(span.spanId))
    throw new Error(`span id must be 16 lower-case hex digits, not all zero, got "${span.spanId}"`);
  if (!Number.isInteger(span.traceFlags) || span.traceFlags < 0 || span.traceFlags > 255)
    throw new Error(`trace flags must be one byte, got ${span.traceFlags}`);
  const flags = span.traceFlags.toString(16).padStart(2, "0");
  const traceparent = `00-${span.traceId}-${span.spanId}-${flags}`;
  return span.traceState === undefined || span.traceState === ""
    ? { traceparent }
    : { traceparent, tracestate: span.traceState };
}

/** The OTLP protocols the SDK exports traces with. */
const otlpProtocols = ["http/protobuf", "http/json", "grpc"];

/**
 * Whether traces are exported: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or
 * OTEL_EXPORTER_OTLP_ENDPOINT is set, and neither OTEL_SDK_DISABLED=true nor
 * OTEL_TRACES_EXPORTER=none says otherwise. The rest of the OTEL_* variables
 * are the SDK's own to read. Throws, naming the variable, on a protocol the
 * SDK does not speak, rather than let it fall back quietly.
 */
export function tracesWanted(env: NodeJS.ProcessEnv): boolean {
  const value = (name: string) => env[name]?.trim() || undefined;
  for (const name of ["OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"]) {
    const protocol = value(name);
    if (protocol !== undefined && !otlpProtocols.includes(protocol))
      throw new Error(`${name} must be one of ${otlpProtocols.join(", ")}, got "${protocol}"`);
  }
  const endpoint = value("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") ?? value("OTEL_EXPORTER_OTLP_ENDPOINT");
  if (endpoint === undefined) return false;
  if (value("OTEL_SDK_DISABLED")?.toLowerCase() === "true") return false;
  return value("OTEL_TRACES_EXPORTER")?.toLowerCase() !== "none";
}
