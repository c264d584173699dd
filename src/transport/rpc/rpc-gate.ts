// The gate in front of the Connect router: a saved query's call authenticated from its headers and its declared
// body bounded before a byte of it is read; keyless calls bounded per address (transport/http/keyless-limit.ts).
import type { ConnectError } from "@connectrpc/connect";
import type { Authenticator, HeaderReader } from "../../auth/index.js";
import type { Logger } from "../../observability/index.js";
import {
  type AuthenticatedSteps,
  authenticateThen,
  type Call,
  type CallHandler,
  handlerThrew,
  isKeyedProcedure,
  type RecordCall,
  type RequestHead,
  recordRateLimited,
} from "../call/index.js";
import { parseConnectTimeout, parseTimeout } from "./connect-internals.js";
import { bodyTooLarge, sendRpcError } from "./rpc-error-response.js";
import { callProtocolOf, type RpcProtocol, rpcProtocolOf } from "./rpc-protocol.js";

/** Throws RESOURCE_EXHAUSTED (with Retry-After) when the client of `peer` is past its bound of `kind`. */
export type KeylessRpcLimit = (kind: "probe" | "reflection" | "other", headers: HeaderReader, peer: string) => void;

export interface RpcGateOptions {
  authenticate: Authenticator;
  /** Largest request body in bytes, as declared by Content-Length (the router bounds the rest). */
  maxBodyBytes: number;
  /** Told of every call refused here, for metrics. */
  onRefused: (protocol: RpcProtocol, error: ConnectError, call: Call) => void;
  /** Where a failure of the gate's own work after a token's first check goes. */
  logger: Logger;
  /**
   * The longest deadline of a call: a longer `grpc-timeout` or `connect-timeout-ms` is cut to it before the router
   * sets a timer for it (Node fires a timer of 2^31 ms or more at once).
   */
  maxTimeoutMs: number;
  /** Bounds the calls that need no key per client address. Default: unbounded. */
  keylessLimit?: KeylessRpcLimit;
}

/** `next` (the Connect router) behind the gate: a saved query's call reaches it authenticated, the rest as it came. */
export function createRpcGate(options: RpcGateOptions): { guard(next: CallHandler): CallHandler } {
  const { authenticate, maxBodyBytes, maxTimeoutMs, keylessLimit } = options;

  const refuse = (call: Call, error: ConnectError, status?: number) => {
    error.metadata.set("x-request-id", call.requestId);
    const head = call.head;
    const protocol = rpcProtocolOf(head.method, head.headers["content-type"], head.url ?? "/") ?? "connect";
    options.onRefused(protocol, error, call);
    sendRpcError(call.exchange(), protocol, error, status);
  };

  return {
    guard(next) {
      const steps: AuthenticatedSteps = {
        admitted: (call) => next(call),
        refuse: (call, error) => refuse(call, error as ConnectError),
        failed: (call, error) => handlerThrew(...call.exchange(), error, options.logger),
      };
      return (call) => {
        // A watch stream's deadline is the client's own, cut only to the longest timer Node keeps.
        capDeadline(call.head.headers, call.route === "watch-procedure" ? maxTimerMs : maxTimeoutMs);
        if (!isKeyedProcedure(call.route)) {
          const head = call.head;
          if (
            keylessLimit === undefined ||
            rpcProtocolOf(head.method, head.headers["content-type"], head.url ?? "/") === undefined
          )
            return next(call);
          // The saved queries' procedures are keyed (routed apart); health and reflection are the rest served.
          const kind =
            call.route === "grpc-health" ? "probe" : call.route === "grpc-reflection" ? "reflection" : "other";
          try {
            keylessLimit(kind, call, call.clientAddress);
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

/** Records a unary saved query's call refused at the gate by its caller's rate limit; anything else is not recorded. */
export function createRecordRefusedRpc(record: RecordCall | undefined) {
  return (call: Call, protocol: RpcProtocol, error: unknown): void => {
    if (call.route !== "saved-query-procedure") return;
    const endpoint = call.endpoint?.definition.name;
    recordRateLimited(record, call, { endpoint, protocol: callProtocolOf(protocol) }, error);
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
