// Conditional GET (RFC 9110 §13): whether the caller's copy, named by
// If-None-Match or dated by If-Modified-Since, is the answer it would get.
import type { IncomingHttpHeaders } from "node:http";

/** Whether the request names the caller's copy (If-None-Match, If-Modified-Since). */
export function isConditional(headers: IncomingHttpHeaders): boolean {
  return headers["if-none-match"] !== undefined || headers["if-modified-since"] !== undefined;
}

/** True when the request's conditions name the answer tagged `etag`, computed at `computedAt`: it is answered 304. */
export function requestNotModified(headers: IncomingHttpHeaders, etag: string, computedAt: number): boolean {
  const ifNoneMatch = headers["if-none-match"];
  const ifModifiedSince = headers["if-modified-since"];
  if (ifNoneMatch === undefined && ifModifiedSince === undefined) return false;
  return notModified(ifNoneMatch, ifModifiedSince, etag, computedAt);
}

/**
 * True when the answer is 304 Not Modified: `ifNoneMatch` (a list of tags,
 * or `*`) names `etag` by weak comparison; without it, `ifModifiedSince`
 * is a valid HTTP-date no earlier than `computedAt` (whole seconds).
 */
export function notModified(
  ifNoneMatch: string | undefined,
  ifModifiedSince: string | undefined,
  etag: string,
  computedAt: number,
): boolean {
  if (ifNoneMatch !== undefined) return tagListMatches(ifNoneMatch, etag);
  if (ifModifiedSince === undefined) return false;
  const since = Date.parse(ifModifiedSince);
  return !Number.isNaN(since) && Math.floor(computedAt / 1000) * 1000 <= since;
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
