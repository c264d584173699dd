// Reading a request's head as it is: headers, the request id, whether a body comes, the freshness asked.
import { randomUUID } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import { type Freshness, freshnessFrom } from "../../endpoints/index.js";
import type { HttpRequest } from "./request-handler.js";

/** A reader over a header object, without building a fetch Headers per request. */
export function headerReader(headers: IncomingHttpHeaders): { get(name: string): string | null } {
  return { get: (name) => headerValue(headers, name) };
}

/** The header `name` as one value (repeated ones joined by ", "), or null when absent. */
export function headerValue(headers: IncomingHttpHeaders, name: string): string | null {
  const value = headers[name];
  if (value === undefined) return null;
  return Array.isArray(value) ? value.join(", ") : value;
}

/** The id of a call: the caller's `x-request-id` when sane, else a new UUID. */
export function requestIdFrom(headers: { get(name: string): string | null }): string {
  const given = headers.get("x-request-id");
  return given !== null && /^[\w.:-]{1,128}$/.test(given) ? given : randomUUID();
}

/** Whether `request` declares a body (a length above 0, or chunks). */
export function hasBody(request: HttpRequest): boolean {
  const length = request.headers["content-length"];
  return request.headers["transfer-encoding"] !== undefined || (length !== undefined && length !== "0");
}

/** Whether the request asks for a freshness: such calls skip the hit paths, for execute to read. */
export function asksFreshness(headers: IncomingHttpHeaders): boolean {
  return headers["cache-control"] !== undefined || headers.pragma !== undefined;
}

/** What the request accepts of a cached result; undefined for any live one. */
export function freshnessOfHead(headers: IncomingHttpHeaders): Freshness | undefined {
  return freshnessFrom(headers["cache-control"], headerValue(headers, "pragma") ?? undefined);
}
