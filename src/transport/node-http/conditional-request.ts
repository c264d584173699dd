// Conditional GET (RFC 9110 §13): whether the caller's copy, named by
// If-None-Match or dated by If-Modified-Since, is the answer it would get.
import type { IncomingHttpHeaders } from "node:http";
import { parseHttpDate } from "./http-date.js";

/** Whether the request names the caller's copy (If-None-Match, If-Modified-Since). */
export function isConditional(headers: IncomingHttpHeaders): boolean {
  return headers["if-none-match"] !== undefined || headers["if-modified-since"] !== undefined;
}

/** True when the request's conditions name the answer tagged `etag`, computed at `computedAt`: it is answered 304. */
export function requestNotModified(
  headers: IncomingHttpHeaders,
  etag: string,
  computedAt: number,
  now: number = Date.now(),
): boolean {
  if (!isConditional(headers)) return false;
  return notModified(headers, etag, computedAt, now);
}

/** A request's conditions, as its headers name them. */
export interface RequestConditions {
  "if-none-match"?: string;
  "if-modified-since"?: string;
}

/**
 * True when the answer is 304 Not Modified: If-None-Match (a list of tags,
 * or `*`) names `etag` by weak comparison; without it, If-Modified-Since
 * is an HTTP-date no earlier than `computedAt` (whole seconds) and no later
 * than `now` (§13.1.3: any other value is ignored).
 */
export function notModified(
  conditions: RequestConditions,
  etag: string,
  computedAt: number,
  now: number = Date.now(),
): boolean {
  const ifNoneMatch = conditions["if-none-match"];
  const ifModifiedSince = conditions["if-modified-since"];
  if (ifNoneMatch !== undefined) return tagListMatches(ifNoneMatch, etag);
  if (ifModifiedSince === undefined) return false;
  const since = parseHttpDate(ifModifiedSince, now);
  return since !== undefined && since <= now && Math.floor(computedAt / 1000) * 1000 <= since;
}

/** Weak comparison (§8.8.3.2) of each member of `list` with `etag`: the opaque tags alone. */
function tagListMatches(list: string, etag: string): boolean {
  if (list.trim() === "*") return true;
  const opaque = opaqueTag(etag);
  for (const member of list.split(",")) if (opaqueTag(member.trim()) === opaque) return true;
  return false;
}

function opaqueTag(tag: string): string {
  return tag.startsWith("W/") ? tag.slice(2) : tag;
}

/** Headers of a 200 answer that describe its body, which a 304 has none of. */
const bodyHeaders = new Set(["content-length", "content-type", "content-encoding"]);

/** Answers 304 on `response` with the headers of the 200 answer it stands for, less those of its body. */
export function sendNotModified(
  response: { writeHead(status: number, headers: Record<string, string>): unknown; end(): unknown },
  header: Headers,
): void {
  const headers: Record<string, string> = {};
  header.forEach((value, name) => {
    if (!bodyHeaders.has(name)) headers[name] = value;
  });
  response.writeHead(304, headers);
  response.end();
}
