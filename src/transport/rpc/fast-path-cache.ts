// The cache headers of a fast-path hit, and the 304 of a Connect GET whose
// caller holds the answer already (If-None-Match, If-Modified-Since).
import type { EndpointResult } from "../../endpoints/index.js";
import { type Call, type CacheHeaders, cacheHeaders, requestNotModified } from "../node-http/index.js";
import type { UnaryRequestForm } from "./unary-request.js";
import { messageForm, varyKeyed } from "./rpc-cache-headers.js";

const emptyBody = Buffer.alloc(0);

/** The validators and cache headers of `hit` in the call's form, with Vary. */
export function fastPathCacheHeaders(
  call: Call,
  hit: EndpointResult,
  form: UnaryRequestForm,
  staleIfErrorSeconds: number,
): CacheHeaders & { vary: string } {
  const headers = cacheHeaders(hit, messageForm(form.binary), staleIfErrorSeconds) as CacheHeaders & { vary: string };
  headers.vary = call.cors.vary(varyKeyed);
  return headers;
}

/** Answers 304 with the cache headers when the request's conditions name this answer: true when it did. */
export function answeredNotModified(call: Call, hit: EndpointResult, cache: CacheHeaders & { vary: string }): boolean {
  if (!requestNotModified(call.head.headers, cache.etag, hit.computation.computedAt)) return false;
  const headers: Record<string, string> = call.corsHeadersToWrite();
  for (const [name, value] of Object.entries(cache)) if (value !== undefined) headers[name] = value;
  headers["x-request-id"] = call.requestId;
  call.reply(304, headers, emptyBody);
  return true;
}
