// One structured log line per Connect, gRPC or gRPC-Web call (saved query, procedure, protocol, code, duration,
// request id, caller), never headers, so never keys or tokens.
import type { DescMethod } from "@bufbuild/protobuf";
import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
import type { Logger } from "../../observability/index.js";
import type { Endpoint } from "../../endpoints/index.js";
import { type AuthenticatedCall, requestIdFrom } from "../call/index.js";
import { callOf } from "./router-context.js";
import { callProtocolOf, rpcProtocolOf } from "./rpc-protocol.js";

export type CallObserver = (event: {
  method: DescMethod;
  endpoint?: string;
  protocol: string;
  code: Code | "ok";
  durationMs: number;
  caller?: string;
}) => void;

export interface LoggingInterceptorOptions {
  /** The saved query `method` runs, named in its lines; undefined for other methods (health, reflection). */
  endpointOf?: (method: DescMethod) => string | undefined;
  /** Called after each call, for metrics. */
  observe?: CallObserver;
}

/** A call as its log line and metrics name it; `procedure` is `service/method`, `started` performance.now(). */
interface LoggedCall {
  method: DescMethod;
  procedure: string;
  endpoint?: string;
  protocol: string;
  requestId: string;
  caller?: string;
  started: number;
}

/** Ends a call: hands it to `observe` (for metrics) and writes its log line. */
export type CallLines = (call: LoggedCall, code: Code | "ok", error?: ConnectError) => void;

/** The LoggedCall of a saved query's call answered outside the router (the fast path). */
export function loggedCallOf(call: AuthenticatedCall, endpoint: Endpoint, protocol: string): LoggedCall {
  // One literal, not a spread of the named parts plus the rest, which V8 builds more slowly.
  return {
    method: endpoint.method,
    procedure: endpoint.grpcMethod,
    endpoint: endpoint.definition.name,
    protocol,
    requestId: call.requestId,
    caller: call.credential.id,
    started: call.started,
  };
}

/**
 * The one writer of every RPC call's log line and metrics, the router's and the fast path's: successes at debug, the
 * caller's mistakes at info, the service's faults at error, the rest at warn.
 */
export function createCallLines(logger: Logger, observe: CallObserver = () => {}): CallLines {
  return (call, code, error) => {
    const { method, endpoint, protocol, caller, requestId } = call;
    const durationMs = performance.now() - call.started;
    observe({ method, endpoint, protocol, code, durationMs, caller });
    // Below debug, a success's line is not even made.
    if (error === undefined && !logger.enabled("debug")) return;
    const fields = {
      requestId,
      caller,
      endpoint,
      procedure: call.procedure,
      protocol,
      code: code === "ok" ? "ok" : Code[code],
      durationMs: Math.round(durationMs * 10) / 10,
    };
    if (error === undefined) logger.debug("call", fields);
    // The caller's mistake (a health check of an unknown service, say) or its leaving: no warning.
    else if (callersDoing.has(code)) logger.info("call", fields);
    // A bug or a broken dependency: at error, with the cause (and its stack) for whoever fixes it.
    else if (serverFault.has(code))
      logger.error("call failed", { ...fields, error: error.rawMessage, cause: error.cause ?? error });
    else logger.warn("call failed", { ...fields, error: error.rawMessage, cause: error.cause });
  };
}

/**
 * Logs each call and hands it to `observe` (for metrics); sets `x-request-id` on the response. A streaming call
 * (health Watch, reflection) is logged when its response stream starts.
 */
export function loggingInterceptor(logger: Logger, options: LoggingInterceptorOptions = {}): Interceptor {
  const endpointOf = options.endpointOf ?? (() => undefined);
  const log = createCallLines(logger, options.observe);
  return (next) => async (request) => {
    const routed = callOf(request.contextValues);
    const requestId = routed?.requestId ?? requestIdFrom(request.header);
    const call: LoggedCall = {
      method: request.method,
      procedure: `${request.service.typeName}/${request.method.name}`,
      endpoint: endpointOf(request.method),
      protocol: callProtocolOf(
        rpcProtocolOf(request.requestMethod, request.header.get("content-type") ?? undefined, request.url),
      ),
      requestId,
      caller: routed?.credential?.id,
      started: performance.now(),
    };
    try {
      const response = await next(request);
      response.header.set("x-request-id", requestId);
      log(call, "ok");
      return response;
    } catch (error) {
      const connectError = ConnectError.from(error);
      connectError.metadata.set("x-request-id", requestId);
      // A caller that reset its stream while its request was read fails the read with no code of its own (UNKNOWN,
      // "premature close"): it went away, which is no fault of the service.
      const gone = connectError.code === Code.Unknown && request.signal.aborted;
      log(call, gone ? Code.Canceled : connectError.code, connectError);
      throw connectError;
    }
  };
}

/** Codes of what the caller did (a bad request, a wrong key, leaving): logged at info. */
const callersDoing: ReadonlySet<Code | "ok"> = new Set([
  Code.InvalidArgument,
  Code.Unauthenticated,
  Code.NotFound,
  Code.PermissionDenied,
  Code.Canceled,
]);

/** Codes that mean the service, not the caller or the load, went wrong. */
const serverFault: ReadonlySet<Code | "ok"> = new Set([Code.Internal, Code.Unknown, Code.DataLoss]);
