// The server span of every saved-query call, on every transport (GET,
// Connect, gRPC, gRPC-Web): started before anything else of the call runs,
// as a child of the caller's W3C `traceparent`, current while the call is
// served (so the cache's, the executor's and the warehouse's spans descend
// from it), ended when the response closes. Only wired in when traces are
// exported (docs/observability.md); the call takes the same path either way.
// It reads the route and saved query the router gave each call.
import { traceAttribute, type Tracing } from "../observability/index.js";
import type { CallHandler } from "./node-http/index.js";
import { rpcProtocolOf } from "./rpc/index.js";

/** `handler` with a server span around each saved-query call (a unary call routed to one: node-http/call-route.ts). */
export function traceCalls(handler: CallHandler, tracing: Tracing): CallHandler {
  return (call) => {
    const route = call.route;
    if (route !== "saved-query" && route !== "saved-query-procedure") return handler(call);
    const head = call.head;
    const url = head.url ?? "/";
    // A GET of a malformed or unknown name is answered by the routes, untraced.
    const endpoint = call.endpoint?.definition.name;
    if (endpoint === undefined) return handler(call);
    const headers = head.headers;
    const span = tracing.startCall(endpoint, (name) => call.get(name) ?? undefined, {
      [traceAttribute.endpoint]: endpoint,
      [traceAttribute.protocol]:
        route === "saved-query" ? "http" : (rpcProtocolOf(head.method, headers["content-type"], url) ?? "unknown"),
    });
    // Ended when the answer is done: on the bare HTTP/2 stream, or the Node response, however the call is answered.
    const { stream, response } = call;
    if (stream !== undefined) {
      stream.once("close", () => {
        span.setAttributes({ [traceAttribute.httpStatus]: Number(stream.sentHeaders[":status"] ?? 0) || undefined });
        span.end();
      });
    } else if (response !== undefined) {
      response.once("close", () => {
        span.setAttributes({ [traceAttribute.httpStatus]: response.statusCode });
        span.end();
      });
    }
    tracing.within(span, () => handler(call));
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
