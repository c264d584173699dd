// The cache headers of a fast-path hit, with Vary.
import type { EndpointResult } from "../../endpoints/index.js";
import { type Call, type CacheHeaders, cacheHeaders } from "../node-http/index.js";
import type { UnaryRequestForm } from "./unary-request.js";
import { messageForm, varyKeyed } from "./rpc-cache-headers.js";

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
