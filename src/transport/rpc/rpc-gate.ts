// The gate in front of the Connect router: a call of a procedure that needs a
// key (Connect, gRPC or gRPC-Web) is authenticated from its headers, and
// refused when it declares a body over the bound, before the router reads a
// byte of its body, on a Node request or a bare HTTP/2 stream. An admitted
// call goes on with its credential (to the fast path of hits, then the
// router, where it is a context value). Other paths (keyless procedures such
// as health, unknown ones) go on as they are.
import type { ConnectError } from "@connectrpc/connect";
import type { Authenticator, Credential } from "../../auth/index.js";
import { type Logger, silentLogger } from "../../observability/index.js";
import {
  type CorsHeaders,
  type CorsHandler,
  authenticateThen,
  handlerThrew,
  headerReader,
  pathOf,
  requestIdFrom,
  streamAddress,
  streamHead,
  type HttpRequest,
  type HttpResponse,
  type RequestHead,
  type StreamHandler,
  withCorsHeadersSet,
} from "../node-http/index.js";
import { bodyTooLarge, rpcProtocolOf, sendRpcError, type RpcProtocol } from "./rpc-error-response.js";
import type { KeyedStreamHandler } from "./unary-fast-path.js";

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

/** What the gate lets through. */
export interface GatedHandlers {
  /**
   * A request: with the credential of a call that needs a key, without for
   * the rest; with the headers its answer carries, to write (see
   * CorsHandler).
   */
  request(request: HttpRequest, response: HttpResponse, credential?: Credential, corsHeaders?: CorsHeaders): void;
  /** A call that needs a key on a bare HTTP/2 stream, with its credential. */
  stream: KeyedStreamHandler;
}

export interface RpcGate {
  /** Whether a request target is a call that needs a key (a saved query's procedure). */
  keyed(target: string): boolean;
  /** `next` (the fast path of hits, then the Connect router) behind the gate, for requests and for bare HTTP/2 streams. */
  guard(next: GatedHandlers): { handler: CorsHandler; stream: StreamHandler };
}

export function createRpcGate(options: RpcGateOptions): RpcGate {
  const { authenticate, maxBodyBytes } = options;
  const { keyedPaths } = options;
  const onRefused = options.onRefused ?? (() => {});
  const logger = options.logger ?? silentLogger;
  const maxTimeoutMs = options.maxTimeoutMs;
  const keyed = (target: string) => keyedPaths.has(pathOf(target));

  const refuse = (request: HttpRequest, response: HttpResponse, error: ConnectError, status?: number) => {
    error.metadata.set("x-request-id", requestIdFrom(headerReader(request.headers)));
    const protocol = rpcProtocolOf(request.method, request.headers["content-type"], request.url ?? "/") ?? "connect";
    onRefused(protocol, error);
    sendRpcError(request, response, protocol, error, status);
  };

  /**
   * The gate's checks of a request's head (its deadline cut first): "open"
   * for a call that needs no key, "keyed" for one that does, or the refusal
   * of a body declared larger than the bound.
   */
  function check(head: RequestHead): "keyed" | "open" | ConnectError {
    if (maxTimeoutMs !== undefined) capDeadline(head.headers, maxTimeoutMs);
    if (!keyed(head.url ?? "/")) return "open";
    const declared = Number(head.headers["content-length"] ?? 0);
    return declared > maxBodyBytes ? bodyTooLarge(maxBodyBytes) : "keyed";
  }

  return {
    keyed,
    guard: (next) => ({
      handler(request, response, corsHeaders) {
        const checked = check(request);
        if (checked === "open") return next.request(request, response, undefined, corsHeaders);
        const toRequest = withCorsHeadersSet(() => [request, response], corsHeaders);
        if (checked !== "keyed") return refuse(...toRequest(), checked, 413);
        // A token seen for the first time: its signature is checked before the body is read.
        authenticateThen(authenticate, headerReader(request.headers), request.socket?.remoteAddress ?? "", {
          admitted: (credential) => next.request(request, response, credential, corsHeaders),
          refuse: (error) => refuse(...toRequest(), error as ConnectError),
          failed: (error) => handlerThrew(...toRequest(), error, logger),
        });
      },
      stream(stream, headers, toRequest, corsHeaders) {
        const checked = check(streamHead(headers));
        if (checked === "open") return next.request(...toRequest());
        if (checked !== "keyed") return refuse(...toRequest(), checked, 413);
        authenticateThen(authenticate, headerReader(headers), streamAddress(stream), {
          admitted: (credential) => next.stream(stream, headers, toRequest, corsHeaders, credential),
          refuse: (error) => refuse(...toRequest(), error as ConnectError),
          failed: (error) => handlerThrew(...toRequest(), error, logger),
        });
      },
    }),
  };
}

const grpcTimeoutUnitMs: Record<string, number> = { H: 3_600_000, M: 60_000, S: 1_000, m: 1, u: 0.001, n: 0.000_001 };

/** Cuts a call's `grpc-timeout` or `connect-timeout-ms` header to `maxTimeoutMs`; a malformed one is left to the router to refuse. */
export function capDeadline(headers: RequestHead["headers"], maxTimeoutMs: number): void {
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
