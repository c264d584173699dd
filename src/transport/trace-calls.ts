// The server span of every saved-query call, on every transport (GET,
// Connect, gRPC, gRPC-Web): started before anything else of the call runs,
// as a child of the caller's W3C `traceparent`, current while the call is
// served (so the cache's, the executor's and the warehouse's spans descend
// from it), ended when the response closes. Only wired in when traces are
// exported (docs/observability.md); otherwise the handler is left as it is.
import type { IncomingHttpHeaders } from "node:http";
import { traceAttribute, type Tracing } from "../observability/index.js";
import { pathOf } from "./node-http/index.js";
import { rpcProtocolOf } from "./rpc/index.js";

/** What is read of a request (Node's HTTP/1.1 and HTTP/2 requests both have it). */
interface Request {
  url?: string;
  method?: string;
  headers: IncomingHttpHeaders;
}
/** What is read of a response. */
interface Response {
  statusCode: number;
  once(event: "close", listener: () => void): unknown;
}

export interface TraceCallsOptions {
  tracing: Tracing;
  /** The saved query a request path calls (a GET route or an RPC method), or undefined: not traced. */
  endpointOf(path: string): string | undefined;
}

/** `handler` with a server span around each saved-query call; what else it is given (the answer's headers) is passed on. */
export function traceCalls<Q extends Request, R extends Response, A extends unknown[]>(
  handler: (request: Q, response: R, ...rest: A) => void,
  options: TraceCallsOptions,
): (request: Q, response: R, ...rest: A) => void {
  const { tracing } = options;
  return (request, response, ...rest) => {
    const url = request.url ?? "/";
    const path = pathOf(url);
    const endpoint = options.endpointOf(path);
    if (endpoint === undefined) return handler(request, response, ...rest);
    const headers = request.headers;
    const span = tracing.startCall(endpoint, (name) => headerValue(headers, name), {
      [traceAttribute.endpoint]: endpoint,
      [traceAttribute.protocol]: path.startsWith("/api/")
        ? "http"
        : (rpcProtocolOf(request.method, headers["content-type"], url) ?? "unknown"),
    });
    response.once("close", () => {
      span.setAttributes({ [traceAttribute.httpStatus]: response.statusCode });
      span.end();
    });
    tracing.within(span, () => handler(request, response, ...rest));
  };
}

/** The outcome of the current call, from wherever it becomes known (authentication, the cache, the call's end). */
export function recordCallOutcome(
  tracing: Tracing | undefined,
  outcome: { code?: string; caller?: string; cache?: string },
): void {
  const span = tracing?.currentCall();
  if (span === undefined) return;
  span.setAttributes({
    [traceAttribute.code]: outcome.code,
    [traceAttribute.caller]: outcome.caller,
    [traceAttribute.cache]: outcome.cache,
  });
  if (outcome.code !== undefined && serverFaults.has(outcome.code)) span.fail(outcome.code);
}

/**
 * Codes that mark a server span failed: the service or what it depends on
 * did not answer (as 5xx statuses do for HTTP servers); a caller's mistake
 * (an invalid argument, a wrong key) does not.
 */
const serverFaults: ReadonlySet<string> = new Set([
  "unknown",
  "internal",
  "unavailable",
  "deadline_exceeded",
  "data_loss",
  "unimplemented",
]);

function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value.join(",") : value;
}
