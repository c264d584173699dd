// The caller's freshness read from its request (RFC 9111 §5.2.1): the
// `Cache-Control` header or `cache-control` metadata, and `Pragma: no-cache`
// (§5.4) when there is no Cache-Control; and the error of an only-if-cached
// call the cache cannot answer.
import { Code, ConnectError } from "@connectrpc/connect";
import type { Freshness } from "./call-types.js";

/** The greatest delta-seconds a recipient counts (RFC 9111 §1.2.2). */
const greatestDeltaSeconds = 2_147_483_648;

/**
 * The freshness `cacheControl` and `pragma` ask for, or undefined when they
 * ask nothing this service does. Read: `no-cache`, `max-age=N` (the smallest
 * when repeated; a value that is not digits is ignored), `only-if-cached`.
 * Ignored: `no-store` (the result cache is the service's own, and answers
 * are `private`, so nothing shared stores them), `max-stale`, `min-fresh`,
 * `no-transform` and unknown directives. `Pragma: no-cache` counts only when
 * Cache-Control is absent or empty. Names are case-insensitive.
 */
export function freshnessFrom(cacheControl: string | undefined, pragma: string | undefined): Freshness | undefined {
  const directives = cacheControl === undefined ? [] : parseDirectives(cacheControl);
  if (directives.length === 0)
    return pragma !== undefined && parseDirectives(pragma).some(([name]) => name === "no-cache")
      ? { noCache: true }
      : undefined;
  const freshness: Freshness = {};
  let any = false;
  for (const [name, value] of directives) {
    if (name === "no-cache") freshness.noCache = any = true;
    else if (name === "only-if-cached") freshness.onlyIfCached = any = true;
    else if (name === "max-age" && value !== undefined && /^\d+$/.test(value)) {
      const seconds = Math.min(Number(value), greatestDeltaSeconds);
      freshness.maxAgeSeconds = Math.min(freshness.maxAgeSeconds ?? seconds, seconds);
      any = true;
    }
  }
  return any ? freshness : undefined;
}

/** `name[=token|"quoted"]` members of a comma-separated list, names lowercased, values unquoted. */
function parseDirectives(list: string): [string, string | undefined][] {
  const members: [string, string | undefined][] = [];
  const member = /\s*([^=,\s]+)\s*(?:=\s*(?:"((?:[^"\\]|\\.)*)"|([^,\s]*)))?\s*(?:,|$)/y;
  let at = 0;
  while (at < list.length) {
    member.lastIndex = at;
    const match = member.exec(list);
    if (match === null) {
      // Not a member: skip to the next comma.
      const comma = list.indexOf(",", at);
      if (comma < 0) break;
      at = comma + 1;
      continue;
    }
    const quoted = match[2]?.replace(/\\(.)/g, "$1");
    members.push([match[1]!.toLowerCase(), quoted ?? match[3]]);
    at = member.lastIndex;
  }
  return members;
}

/** Marks the error of an only-if-cached call the cache holds no result for, apart from an outage's UNAVAILABLE. */
export class NotCached extends Error {
  override readonly name = "NotCached";
}

/** UNAVAILABLE "result not cached (only-if-cached)", its cause a NotCached: HTTP answers it 504 (RFC 9111 §5.2.1.7). */
export function notCachedError(): ConnectError {
  const message = "result not cached (only-if-cached)";
  return new ConnectError(message, Code.Unavailable, undefined, undefined, new NotCached(message));
}

/** Whether `error` is notCachedError's. */
export function isNotCachedError(error: unknown): boolean {
  return error instanceof ConnectError && error.cause instanceof NotCached;
}
