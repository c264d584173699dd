// The gate in front of the Connect router: a call of a procedure that needs a
// key (Connect, gRPC or gRPC-Web) is authenticated from its headers, and
// refused when it declares a body over the bound, before the router reads a
// byte of its body. The credential of an admitted call travels to the
// handlers as a context value. Other paths (keyless procedures such as
// health, unknown ones) go to the router as they are.
import { createContextValues, type ConnectError, type ContextValues } from "@connectrpc/connect";
import type { Authenticator, Credential } from "../../auth/index.js";
import { type Logger, silentLogger } from "../../observability/index.js";
import {
  handlerThrew,
  headersOf,
  pathOf,
  requestIdFrom,
  type HttpRequest,
  type HttpResponse,
  type RequestHandler,
} from "../node-http/index.js";
import { credentialKey } from "./request-context.js";
import { bodyTooLarge, rpcProtocolOf, sendRpcError, type RpcProtocol } from "./rpc-error-response.js";

export interface RpcGateOptions {
  authenticate: Authenticator;
  /** Largest request body in bytes, as declared by Content-Length (the router bounds the rest). */
  maxBodyBytes: number;
  /** The request paths of the procedures that need a key, e.g. `/logs.v1.LogsService/GetAllLogs`. */
  keyedPaths: ReadonlySet<string>;
  /** Told of every call refused here, for metrics. Default: nothing. */
  onRefused?: (protocol: RpcProtocol, error: ConnectError) => void;
  /** Where a failure of the gate's own work after a token's first check goes. Default: silent. */
  logger?: Logger;
  /**
   * The longest deadline of a call: a longer `grpc-timeout` or
   * `connect-timeout-ms` is cut to it before the router sets a timer for it
   * (Node fires a timer of 2^31 ms or more at once). Default: no cut.
   */
  maxTimeoutMs?: number;
}

export interface RpcGate {
  /** For connectNodeAdapter's `contextValues`: the credential the gate found for `request`. */
  contextValues(request: HttpRequest): ContextValues;
  /** `next` (the Connect adapter made with `contextValues`) behind the gate. */
  guard(next: RequestHandler): RequestHandler;
}

export function createRpcGate(options: RpcGateOptions): RpcGate {
  const { authenticate, maxBodyBytes } = options;
  const { keyedPaths } = options;
  const onRefused = options.onRefused ?? (() => {});
  const logger = options.logger ?? silentLogger;
  const credentials = new WeakMap<object, Credential>();

  const refuse = (request: HttpRequest, response: HttpResponse, error: ConnectError, status?: number) => {
    error.metadata.set("x-request-id", requestIdFrom(headersOf(request)));
    const protocol = rpcProtocolOf(request.method, request.headers["content-type"], request.url ?? "/") ?? "connect";
    onRefused(protocol, error);
    sendRpcError(request, response, protocol, error, status);
  };

  const maxTimeoutMs = options.maxTimeoutMs;
  return {
    contextValues: (request) => createContextValues().set(credentialKey, credentials.get(request)),
    guard: (next) => (request, response) => {
      if (maxTimeoutMs !== undefined) capDeadline(request.headers, maxTimeoutMs);
      if (!keyedPaths.has(pathOf(request.url))) return next(request, response);
      const declared = Number(request.headers["content-length"] ?? 0);
      if (declared > maxBodyBytes) return refuse(request, response, bodyTooLarge(maxBodyBytes), 413);
      let credential: Credential | Promise<Credential>;
      try {
        credential = authenticate(headersOf(request), request.socket?.remoteAddress ?? "");
      } catch (error) {
        return refuse(request, response, error as ConnectError);
      }
      if (!(credential instanceof Promise)) {
        credentials.set(request, credential);
        return next(request, response);
      }
      // A token seen for the first time: its signature is checked before the body is read.
      credential
        .then(
          (verified) => {
            credentials.set(request, verified);
            next(request, response);
          },
          (error: unknown) => refuse(request, response, error as ConnectError),
        )
        .catch((error: unknown) => handlerThrew(request, response, error, logger));
    },
  };
}

const grpcTimeoutUnitMs: Record<string, number> = { H: 3_600_000, M: 60_000, S: 1_000, m: 1, u: 0.001, n: 0.000_001 };

/** Cuts a call's `grpc-timeout` or `connect-timeout-ms` header to `maxTimeoutMs`; a malformed one is left to the router to refuse. */
export function capDeadline(headers: Record<string, string | string[] | undefined>, maxTimeoutMs: number): void {
  const grpc = headers["grpc-timeout"];
  if (typeof grpc === "string") {
    const match = /^(\d{1,8})([HMSmun])$/.exec(grpc);
    if (match !== null && Number(match[1]) * grpcTimeoutUnitMs[match[2]!]! > maxTimeoutMs) {
      headers["grpc-timeout"] = maxTimeoutMs <= 99_999_999 ? `${maxTimeoutMs}m` : `${Math.floor(maxTimeoutMs / 1000)}S`;
    }
  }
  const connect = headers["connect-timeout-ms"];
  if (typeof connect === "string" && /^\d{1,10}$/.test(connect) && Number(connect) > maxTimeoutMs) {
    headers["connect-timeout-ms"] = String(maxTimeoutMs);
  }
}
