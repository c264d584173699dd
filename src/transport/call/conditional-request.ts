// Conditional GET (RFC 9110 §13): whether the caller's copy, named by If-None-Match or dated by If-Modified-Since
// (an HTTP-date in any of its three forms), is the answer it would get.
import type { IncomingHttpHeaders } from "node:http";

/** Whether the request names the caller's copy (If-None-Match, If-Modified-Since). */
export function isConditional(headers: IncomingHttpHeaders): boolean {
  return headers["if-none-match"] !== undefined || headers["if-modified-since"] !== undefined;
}

/** True when the request's conditions name the answer tagged `etag`, computed at `computedAt`: it is answered 304. */
export function requestNotModified(headers: IncomingHttpHeaders, etag: string, computedAt: number): boolean {
  return isConditional(headers) && notModified(headers, etag, computedAt);
}

/**
 * True when the answer is 304 Not Modified: If-None-Match (a list of tags, or `*`) names `etag` by weak comparison;
 * without it, If-Modified-Since is an HTTP-date no earlier than `computedAt` (whole seconds) and no later than `now`
 * (§13.1.3: any other value is ignored).
 */
export function notModified(conditions: IncomingHttpHeaders, etag: string, computedAt: number, now = Date.now()) {
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

const dayNames = "(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)";
const longDayNames = "(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)";
const monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const month = `(${monthNames.join("|")})`;
const time = "(\\d{2}):(\\d{2}):(\\d{2})";

/** `Sun, 06 Nov 1994 08:49:37 GMT`. */
const imfFixdate = new RegExp(`^${dayNames}, (\\d{2}) ${month} (\\d{4}) ${time} GMT$`);
/** `Sunday, 06-Nov-94 08:49:37 GMT`. */
const rfc850Date = new RegExp(`^${longDayNames}, (\\d{2})-${month}-(\\d{2}) ${time} GMT$`);
/** `Sun Nov  6 08:49:37 1994`. */
const asctimeDate = new RegExp(`^${dayNames} ${month} ([ \\d]\\d) ${time} (\\d{4})$`);

/**
 * The instant (ms since the epoch) `value` names, or undefined when it is not an HTTP-date. An RFC 850 two-digit year
 * is the latest year with those digits not more than 50 years after `now` (§5.6.7).
 */
function parseHttpDate(value: string, now: number = Date.now()): number | undefined {
  let match = imfFixdate.exec(value);
  if (match !== null) return instant(+match[3]!, match[2]!, +match[1]!, match.slice(4, 7));
  match = asctimeDate.exec(value);
  if (match !== null) return instant(+match[6]!, match[1]!, +match[2]!.trim(), match.slice(3, 6));
  match = rfc850Date.exec(value);
  if (match === null) return undefined;
  const currentYear = new Date(now).getUTCFullYear();
  let year = currentYear - (currentYear % 100) + +match[3]!;
  if (year > currentYear + 50) year -= 100;
  return instant(year, match[2]!, +match[1]!, match.slice(4, 7));
}

/** The instant of a date at `clock` (hour, minute and second, as matched); undefined when out of range. */
function instant(year: number, monthName: string, day: number, clock: string[]): number | undefined {
  const monthIndex = monthNames.indexOf(monthName);
  const [hour, minute, second] = clock.map(Number) as [number, number, number];
  if (hour > 23 || minute > 59 || second > 60) return undefined;
  const ms = Date.UTC(year, monthIndex, day, hour, minute, Math.min(second, 59));
  // Date.UTC rolls 31 Feb into March: a day the month lacks is no date.
  return day >= 1 && new Date(ms).getUTCDate() === day ? ms : undefined;
}
