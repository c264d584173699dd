// One structured log line per Connect, gRPC or gRPC-Web call: the saved
// query it called (when it called one), procedure, protocol, code, duration,
// request id and caller (a key id or token subject). Never headers, so never
// keys or tokens.
import type { DescMethod } from "@bufbuild/protobuf";
import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
import type { Logger } from "../../observability/index.js";
import { requestIdFrom } from "../node-http/index.js";
import { credentialKey, requestIdKey } from "./request-context.js";

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

/**
 * Logs each call and hands it to `observe` (for metrics); sets `x-request-id`
 * on the response. A streaming call (health Watch, reflection) is logged when
 * its response stream starts.
 */
export function loggingInterceptor(logger: Logger, options: LoggingInterceptorOptions = {}): Interceptor {
  const observe = options.observe ?? (() => {});
  const endpointOf = options.endpointOf ?? (() => undefined);
  return (next) => async (request) => {
    const requestId = requestIdFrom(request.header);
    request.contextValues.set(requestIdKey, requestId);
    const protocol = protocolOf(request.header.get("content-type"));
    const started = performance.now();
    const caller = request.contextValues.get(credentialKey)?.id;
    const endpoint = endpointOf(request.method);
    const finish = (code: Code | "ok", error?: ConnectError) => {
      const durationMs = performance.now() - started;
      observe({ method: request.method, endpoint, protocol, code, durationMs, caller });
      const fields = {
        requestId,
        caller,
        endpoint,
        procedure: `${request.service.typeName}/${request.method.name}`,
        protocol,
        code: code === "ok" ? "ok" : Code[code],
        durationMs: Math.round(durationMs * 10) / 10,
      };
      if (error === undefined) {
        logger.debug("call", fields); // LOG_LEVEL=debug logs every successful call
      } else if (callersDoing.has(code)) {
        // The caller's mistake (a health check of an unknown service, say) or its leaving: no warning.
        logger.info("call", fields);
      } else if (serverFault.has(code)) {
        // A bug or a broken dependency: at error, with the cause (and its stack) for whoever fixes it.
        logger.error("call failed", { ...fields, error: error.rawMessage, cause: error.cause ?? error });
      } else {
        logger.warn("call failed", { ...fields, error: error.rawMessage, cause: error.cause });
      }
    };
    try {
      const response = await next(request);
      response.header.set("x-request-id", requestId);
      finish("ok");
      return response;
    } catch (error) {
      const connectError = ConnectError.from(error);
      connectError.metadata.set("x-request-id", requestId);
      // A caller that reset its stream while its request was read fails the read with no code of its
      // own (UNKNOWN, "premature close"): it went away, which is no fault of the service.
      const gone = connectError.code === Code.Unknown && request.signal.aborted;
      finish(gone ? Code.Canceled : connectError.code, connectError);
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

function protocolOf(contentType: string | null): string {
  if (contentType === null) return "connect";
  if (contentType.startsWith("application/grpc-web")) return "grpc-web";
  if (contentType.startsWith("application/grpc")) return "grpc";
  return "connect";
}
