// An error in a Connect, gRPC or gRPC-Web call's own protocol without the router, for calls refused from their
// headers alone and procedures not served; status, message and metadata are the router's (protocol-*.ts).
import { constants as http2Constants } from "node:http2";
import { Code, ConnectError } from "@connectrpc/connect";
import { hasBody, type RequestAndResponse } from "../call/index.js";
import { connectEndStream, connectUnaryError } from "./protocol-connect.js";
import { grpcStatusFields } from "./protocol-grpc.js";
import type { RpcProtocol } from "./rpc-protocol.js";

/**
 * Writes `error` in `protocol`: gRPC and gRPC-Web trailers-only, Connect unary as its JSON error with the code's
 * status or `httpStatus` (413 for a body too large), Connect streaming as an end-of-stream message. An HTTP/1.1
 * connection whose request body is left unread is closed rather than drained.
 */
export function sendRpcError(
  [request, response]: RequestAndResponse,
  protocol: RpcProtocol,
  error: ConnectError,
  httpStatus?: number,
): void {
  // A caller already gone (its HTTP/2 stream reset, say) is answered nothing: writing to its stream would throw.
  if ("stream" in response ? response.stream.destroyed || response.stream.closed : response.headersSent) return;
  // No cache keeps an error (docs/caching.md).
  const headers: Record<string, string> = { "cache-control": "no-store" };
  if (request.httpVersionMajor === 1 && hasBody(request)) headers.connection = "close";
  const contentType = request.headers["content-type"];
  const writable = response as unknown as {
    writeHead(status: number, headers: object): void;
    end(body?: Uint8Array): void;
  };
  if (protocol === "grpc" || protocol === "grpc-web") {
    const trailers = {
      ...headers,
      "content-type": contentType ?? `application/${protocol}+proto`,
      ...grpcStatusFields(error),
    };
    if ("stream" in response) {
      // Trailers-only on HTTP/2: one HEADERS frame that also ends the stream, which gRPC clients read as the status
      // (Node's compatibility API would send the headers and then an empty DATA frame). The CORS headers set on the
      // response before go along, as writeHead would send them.
      response.stream.respond({ ...response.getHeaders(), ":status": 200, ...trailers }, { endStream: true });
      // A body still coming is not read: the stream is reset once answered.
      if (!request.readableEnded) response.stream.close(http2Constants.NGHTTP2_NO_ERROR);
    } else {
      writable.writeHead(200, trailers);
      writable.end();
    }
    return;
  }
  // Connect: a unary call's JSON error with its metadata as headers, or a stream's end-of-stream message (HTTP 200).
  const unary = protocol === "connect" ? connectUnaryError(error) : undefined;
  const body = unary?.body ?? connectEndStream(error);
  writable.writeHead(unary === undefined ? 200 : (httpStatus ?? unary.status), {
    ...headers,
    ...unary?.headers,
    "content-type": unary === undefined ? contentType! : "application/json",
    "content-length": String(body.byteLength),
  });
  writable.end(body);
}

/** RESOURCE_EXHAUSTED for a request body over `maxBytes`. */
export function bodyTooLarge(maxBytes: number): ConnectError {
  return new ConnectError(`request body is larger than ${maxBytes} bytes`, Code.ResourceExhausted);
}
