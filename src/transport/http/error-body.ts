// The JSON error body of GET responses (docs/http-api.md, Errors):
// {"error": {"code", "message", "details": [{"field", "description"}]}}.
import { Code, ConnectError } from "@connectrpc/connect";
import { isNotCachedError, isPastSunsetError } from "../../endpoints/index.js";
import { fieldViolationsOf } from "../../errors/index.js";
import { codeName, hasBody, httpStatusFromCode, type RequestAndResponse } from "../node-http/index.js";
import { sendJson } from "./respond.js";

export interface ErrorResponse {
  status: number;
  /** Retry-After and RateLimit headers the error carries, for 429 and 503. */
  headers: Record<string, string>;
  body: { error: { code: string; message: string; details: { field: string; description: string }[] } };
}

const forwardedHeaders = ["retry-after", "ratelimit", "ratelimit-policy"];

/** Any thrown value as status and body; non-Connect errors become a bare `internal error`. */
export function errorResponse(error: unknown): ErrorResponse {
  const e = error instanceof ConnectError ? error : new ConnectError("internal error", Code.Internal);
  const headers: Record<string, string> = {};
  for (const name of forwardedHeaders) {
    const value = e.metadata.get(name);
    if (value !== null) headers[name] = value;
  }
  return {
    // Only-if-cached with nothing cached is the gateway timeout RFC 9111 §5.2.1.7 names.
    // A version past its sunset is Gone (RFC 8594 §1), not merely unimplemented.
    status: isNotCachedError(e) ? 504 : isPastSunsetError(e) ? 410 : httpStatusFromCode(e.code),
    headers,
    body: { error: { code: codeName(e.code), message: e.rawMessage, details: fieldViolationsOf(e) } },
  };
}

/**
 * Answers with the error body of `error`, the request id, and the headers the
 * error carries; `answer`'s headers and status override (HTTP's own answers
 * to an error: 405 with Allow, 414).
 */
export function sendError(
  exchange: RequestAndResponse,
  requestId: string,
  error: unknown,
  answer: { headers?: Record<string, string>; status?: number } = {},
): void {
  const [request] = exchange;
  const { status, headers, body } = errorResponse(error);
  sendJson(exchange, answer.status ?? status, body, {
    "x-request-id": requestId,
    "cache-control": "no-store",
    ...headers,
    // A body nobody reads is not drained: the HTTP/1.1 connection closes instead.
    ...(request.httpVersionMajor === 1 && hasBody(request) ? { connection: "close" } : {}),
    ...answer.headers,
  });
}
