// Answers a Connect, gRPC or gRPC-Web request with an error in its own
// protocol, without the Connect router: for calls refused from their headers
// alone (no key, a body too large) before any of the body is read, and for
// calls of procedures that are not served.
import { constants as http2Constants } from "node:http2";
import { Code, ConnectError } from "@connectrpc/connect";
import { codeName, hasBody, httpStatusFromCode, type RequestAndResponse } from "../node-http/index.js";
import type { RpcProtocol } from "./rpc-protocol.js";
import { endStreamFlag, frame } from "./envelope-frame.js";

const forwardedMetadata = ["retry-after", "ratelimit", "ratelimit-policy", "x-request-id"];

/**
 * Writes `error` in `protocol`: gRPC and gRPC-Web as a trailers-only
 * response (HTTP 200, `grpc-status`, `grpc-message`), Connect unary as its
 * JSON error body with the code's HTTP status, or `httpStatus` where plain
 * HTTP has a better word for it (413 for a body too large), Connect streaming
 * as an end-of-stream frame. An HTTP/1.1 connection whose request body is
 * left unread is closed rather than drained.
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
  for (const name of forwardedMetadata) {
    const value = error.metadata.get(name);
    if (value !== null) headers[name] = value;
  }
  if (request.httpVersionMajor === 1 && hasBody(request)) headers.connection = "close";
  const contentType = request.headers["content-type"];
  const writable = response as unknown as {
    writeHead(status: number, headers: object): void;
    end(body?: Buffer): void;
  };
  switch (protocol) {
    case "grpc":
    case "grpc-web": {
      const trailers = {
        ...headers,
        "content-type": contentType ?? `application/${protocol}+proto`,
        "grpc-status": String(error.code),
        "grpc-message": percentEncoded(error.rawMessage),
      };
      if ("stream" in response) {
        // Trailers-only on HTTP/2: one HEADERS frame that also ends the stream,
        // which gRPC clients read as the status (Node's compatibility API
        // would send the headers and then an empty DATA frame).
        // The CORS headers set on the response before go along, as writeHead would send them.
        response.stream.respond({ ...response.getHeaders(), ":status": 200, ...trailers }, { endStream: true });
        // A body still coming is not read: the stream is reset once answered.
        if (!request.readableEnded) response.stream.close(http2Constants.NGHTTP2_NO_ERROR);
      } else {
        writable.writeHead(200, trailers);
        writable.end();
      }
      return;
    }
    case "connect": {
      const json = Buffer.from(JSON.stringify({ code: codeName(error.code), message: error.rawMessage }));
      writable.writeHead(httpStatus ?? httpStatusFromCode(error.code), {
        ...headers,
        "content-type": "application/json",
        "content-length": String(json.length),
      });
      writable.end(json);
      return;
    }
    case "connect-stream": {
      // The end-of-stream message: its JSON names the error.
      const json = Buffer.from(JSON.stringify({ error: { code: codeName(error.code), message: error.rawMessage } }));
      const endStream = frame(endStreamFlag, json);
      writable.writeHead(200, { ...headers, "content-type": contentType!, "content-length": String(endStream.length) });
      writable.end(endStream);
      return;
    }
  }
}

/** RESOURCE_EXHAUSTED for a request body over `maxBytes`. */
export function bodyTooLarge(maxBytes: number): ConnectError {
  return new ConnectError(`request body is larger than ${maxBytes} bytes`, Code.ResourceExhausted);
}

/** grpc-message encoding: printable ASCII but `%` as is, everything else as UTF-8 percent escapes. */
export function percentEncoded(message: string): string {
  return message.replace(/[^\x20-\x24\x26-\x7e]+/g, (run) =>
    [...Buffer.from(run, "utf8")].map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, "0")}`).join(""),
  );
}
