// The gate in front of the Connect router: a call of a procedure that needs a
// key (Connect, gRPC or gRPC-Web) is authenticated from its headers, and
// refused when it declares a body over the bound, before the router reads a
// byte of its body. The credential of an admitted call travels to the
// handlers as a context value. Other paths (keyless procedures such as
// health, unknown ones) go to the router as they are.
import { createContextKey, createContextValues, type ConnectError, type ContextValues } from "@connectrpc/connect";
import type { Authenticator, Credential } from "../auth/index.js";
import { headersOf, type HttpRequest } from "./http/respond.js";
import { requestIdFrom } from "./request-context.js";
import { bodyTooLarge, rpcProtocolOf, sendRpcError, type RpcProtocol } from "./rpc-error-response.js";
import { type Logger, silentLogger } from "../observability/index.js";
import { handlerThrew, type RequestHandler } from "./single-port-server.js";

/** The credential of the call, set by the gate. */
export const credentialKey = createContextKey<Credential | undefined>(undefined, { description: "credential" });

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
}

export interface RpcGate {
  handler: RequestHandler;
  /** For connectNodeAdapter's `contextValues`: the credential the gate found for `request`. */
  contextValues(request: HttpRequest): ContextValues;
}

/** Puts the gate in front of `next` (the Connect adapter). */
export function createRpcGate(next: RequestHandler, options: RpcGateOptions): RpcGate {
  const { authenticate, maxBodyBytes } = options;
  const { keyedPaths } = options;
  const onRefused = options.onRefused ?? (() => {});
  const logger = options.logger ?? silentLogger;
  const credentials = new WeakMap<object, Credential>();

  const refuse = (request: HttpRequest, response: Parameters<RequestHandler>[1], error: ConnectError, status?: number) => {
    error.metadata.set("x-request-id", requestIdFrom(headersOf(request)));
    const protocol = rpcProtocolOf(request.method, request.headers["content-type"], request.url ?? "/") ?? "connect";
    onRefused(protocol, error);
    sendRpcError(request, response, protocol, error, status);
  };

  return {
    handler(request, response) {
      const url = request.url ?? "/";
      const queryAt = url.indexOf("?");
      if (!keyedPaths.has(queryAt < 0 ? url : url.slice(0, queryAt))) return next(request, response);
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
    contextValues: (request) => createContextValues().set(credentialKey, credentials.get(request)),
  };
}
