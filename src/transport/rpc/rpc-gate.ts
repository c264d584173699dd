// The gate in front of the Connect router: a call routed to a saved query's
// procedure (Connect, gRPC or gRPC-Web) is authenticated from its headers,
// and refused when it declares a body over the bound, before the router
// reads a byte of its body, on a Node request or a bare HTTP/2 stream. An
// admitted call goes on with its credential to the router, where the call is
// its context value. Keyless calls (health,
// reflection, unknown procedures) go on within their per-address bound.
import type { ConnectError } from "@connectrpc/connect";
import type { Authenticator } from "../../auth/index.js";
import { type Logger, silentLogger } from "../../observability/index.js";
import {
  type AuthenticatedSteps,
  authenticateThen,
  type Call,
  type CallHandler,
  handlerThrew,
  isKeyedProcedure,
  type RequestHead,
} from "../node-http/index.js";
import { parseConnectTimeout, parseTimeout } from "./connect-internals.js";
import { type KeylessRpcLimit, keylessRpcKindOf } from "./keyless-procedures.js";
import { bodyTooLarge, sendRpcError } from "./rpc-error-response.js";
import { type RpcProtocol, rpcProtocolOf } from "./rpc-protocol.js";

export interface RpcGateOptions {
  authenticate: Authenticator;
  /** Largest request body in bytes, as declared by Content-Length (the router bounds the rest). */
  maxBodyBytes: number;
  /** Told of every call refused here, for metrics. Default: nothing. */
  onRefused?: (protocol: RpcProtocol, error: ConnectError, call: Call) => void;
  /** Where a failure of the gate's own work after a token's first check goes. Default: silent. */
  logger?: Logger;
  /**
   * The longest deadline of a call: a longer `grpc-timeout` or
   * `connect-timeout-ms` is cut to it before the router sets a timer for it
   * (Node fires a timer of 2^31 ms or more at once). Default: no cut.
   */
  maxTimeoutMs?: number;
  /** Bounds the calls that need no key (health, reflection, unknown procedures) per client address. Default: unbounded. */
  keylessLimit?: KeylessRpcLimit;
}

export interface RpcGate {
  /**
   * `next` (the Connect router) behind the gate:
   * a call of a saved query's procedure reaches it authenticated (its
   * credential set on the call), the rest as it came.
   */
  guard(next: CallHandler): CallHandler;
}

export function createRpcGate(options: RpcGateOptions): RpcGate {
  const { authenticate, maxBodyBytes } = options;
  const onRefused = options.onRefused ?? (() => {});
  const logger = options.logger ?? silentLogger;
  const maxTimeoutMs = options.maxTimeoutMs;
  const keylessLimit = options.keylessLimit;

  const refuse = (call: Call, error: ConnectError, status?: number) => {
    error.metadata.set("x-request-id", call.requestId);
    const head = call.head;
    const protocol = rpcProtocolOf(head.method, head.headers["content-type"], head.url ?? "/") ?? "connect";
    onRefused(protocol, error, call);
    sendRpcError(call.exchange(), protocol, error, status);
  };

  return {
    guard(next) {
      const steps: AuthenticatedSteps = {
        admitted: (call) => next(call),
        refuse: (call, error) => refuse(call, error as ConnectError),
        failed: (call, error) => handlerThrew(...call.exchange(), error, logger),
      };
      return (call) => {
        if (maxTimeoutMs !== undefined) {
          // A watch stream's deadline is the client's own, cut only to the longest timer Node keeps.
          capDeadline(call.head.headers, call.route === "watch-procedure" ? maxTimerMs : maxTimeoutMs);
        }
        if (!isKeyedProcedure(call.route)) {
          const kind = keylessLimit === undefined ? undefined : keylessRpcKindOf(call);
          if (kind === undefined) return next(call);
          try {
            keylessLimit!(kind, call, call.client);
          } catch (error) {
            return refuse(call, error as ConnectError);
          }
          return next(call);
        }
        const declared = Number(call.head.headers["content-length"] ?? 0);
        if (declared > maxBodyBytes) return refuse(call, bodyTooLarge(maxBodyBytes), 413);
        // A token seen for the first time: its signature is checked before the body is read.
        authenticateThen(authenticate, call, steps);
      };
    },
  };
}

/** The longest delay a Node timer keeps (a longer one fires at once). */
const maxTimerMs = 2 ** 31 - 1;

/** Cuts a call's `grpc-timeout` or `connect-timeout-ms` header to `maxTimeoutMs`; a malformed one is left to the router to refuse. */
export function capDeadline(headers: RequestHead["headers"], maxTimeoutMs: number): void {
  const grpc = headers["grpc-timeout"];
  if (typeof grpc === "string") {
    const { timeoutMs } = parseTimeout(grpc, Number.MAX_SAFE_INTEGER);
    if (timeoutMs !== undefined && timeoutMs > maxTimeoutMs) {
      headers["grpc-timeout"] = maxTimeoutMs <= 99_999_999 ? `${maxTimeoutMs}m` : `${Math.floor(maxTimeoutMs / 1000)}S`;
    }
  }
  const connect = headers["connect-timeout-ms"];
  if (typeof connect === "string") {
    const { timeoutMs } = parseConnectTimeout(connect, Number.MAX_SAFE_INTEGER);
    if (timeoutMs !== undefined && timeoutMs > maxTimeoutMs) headers["connect-timeout-ms"] = String(maxTimeoutMs);
  }
}
