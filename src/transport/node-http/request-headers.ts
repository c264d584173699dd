// Reading a request's headers as they are: a reader and whether a body comes.
import type { IncomingHttpHeaders } from "node:http";
import type { HttpRequest } from "./request-handler.js";

/**
 * A header reader over a header object (a Node request's or a stream's):
 * the handful of headers the routes and the RPC gate read, without building
 * a fetch Headers per request.
 */
export function headerReader(headers: IncomingHttpHeaders): { get(name: string): string | null } {
  return { get: (name) => headerValue(headers, name) };
}

/** The header `name` as one value (repeated ones joined by ", "), or null when absent. */
export function headerValue(headers: IncomingHttpHeaders, name: string): string | null {
  const value = headers[name];
  if (value === undefined) return null;
  return Array.isArray(value) ? value.join(", ") : value;
}

/** Whether `request` declares a body (a length above 0, or chunks). */
export function hasBody(request: HttpRequest): boolean {
  const length = request.headers["content-length"];
  return request.headers["transfer-encoding"] !== undefined || (length !== undefined && length !== "0");
}
