// The caller's freshness directive as a request's head carries it
// (Cache-Control, Pragma), read the same way by the GET API and the RPC
// fast path.
import type { IncomingHttpHeaders } from "node:http";
import { type Freshness, freshnessFrom } from "../../endpoints/index.js";
import { headerValue } from "./request-headers.js";

/** Whether the request asks for a freshness: such calls skip the hit paths, for execute to read. */
export function asksFreshness(headers: IncomingHttpHeaders): boolean {
  return headers["cache-control"] !== undefined || headers.pragma !== undefined;
}

/** What the request accepts of a cached result; undefined for any live one. */
export function freshnessOfHead(headers: IncomingHttpHeaders): Freshness | undefined {
  return freshnessFrom(headers["cache-control"], headerValue(headers, "pragma") ?? undefined);
}
