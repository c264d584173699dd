// Answers a Connect, gRPC or gRPC-Web request with an error in its own
// protocol, without the Connect router: for calls refused from their headers
// alone (no key, a body too large), before any of the body is read.
import { Code, ConnectError } from "@connectrpc/connect";
import { codeName, httpStatusFromCode } from "./http/http-status.js";
import type { HttpRequest, HttpResponse } from "./http/respond.js";

export type RpcProtocol = "grpc" | "grpc-web" | "connect";

/** The RPC protocol of a request, by its content type (Connect when it is neither gRPC form). */
export function rpcProtocolOf(contentType: string | undefined): RpcProtocol {
  if (contentType === undefined) return "connect";
  if (contentType.startsWith("application/grpc-web")) return "grpc-web";
  if (contentType.startsWith("application/grpc")) return "grpc";
  return "connect";
}

const forwardedMetadata = ["retry-after", "ratelimit", "ratelimit-policy", "x-request-id"];

/**
 * Writes `error` as the protocol of `request` wants it: gRPC and gRPC-Web as
 * a trailers-only response (HTTP 200, `grpc-status`, `grpc-message`), Connect
 * as its JSON error body with the code's HTTP status, or `httpStatus` where
 * plain HTTP has a better word for it (413 for a body too large). An HTTP/1.1
 * connection whose request body is left unread is closed rather than drained.
 */
export function sendRpcError(request: HttpRequest, response: HttpResponse, error: ConnectError, httpStatus?: number): void {
  const headers: Record<string, string> = {};
  for (const name of forwardedMetadata) {
    const value = error.metadata.get(name);
    if (value !== null) headers[name] = value;
  }
  if (request.httpVersionMajor === 1 && hasBody(request)) headers.connection = "close";
  const writable = response as unknown as { writeHead(status: number, headers: object): void; end(body?: string): void };
  const protocol = rpcProtocolOf(request.headers["content-type"]);
  if (protocol === "connect") {
    writable.writeHead(httpStatus ?? httpStatusFromCode(error.code), { ...headers, "content-type": "application/json" });
    writable.end(JSON.stringify({ code: codeName(error.code), message: error.rawMessage }));
    return;
  }
  writable.writeHead(200, {
    ...headers,
    "content-type": protocol === "grpc" ? "application/grpc" : "application/grpc-web+proto",
    "grpc-status": String(error.code),
    "grpc-message": encodeURIComponent(error.rawMessage),
  });
  writable.end();
}

function hasBody(request: HttpRequest): boolean {
  const length = request.headers["content-length"];
  return request.headers["transfer-encoding"] !== undefined || (length !== undefined && length !== "0");
}

/** RESOURCE_EXHAUSTED for a request body over `maxBytes`. */
export function bodyTooLarge(maxBytes: number): ConnectError {
  return new ConnectError(`request body is larger than ${maxBytes} bytes`, Code.ResourceExhausted);
}
