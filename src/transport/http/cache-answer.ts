// The cache headers of a GET answer of a saved query, and its 304 when the
// caller's copy is still the answer (If-None-Match, If-Modified-Since).
import type { EndpointResult } from "../../endpoints/index.js";
import { type Call, setCacheHeaders, type EntityForm, requestNotModified, varyCredential } from "../node-http/index.js";
import type { BodyFormat } from "./content-negotiation.js";
import { bodyFormats } from "./body-formats.js";

/** Each format's entity form, by number. */
const entityForms = bodyFormats.map((f) => f.name as EntityForm);

const varyKeyed = `Accept, Accept-Encoding, ${varyCredential}`;
const emptyBody = Buffer.alloc(0);

/**
 * Adds Vary and the result's validators and cache headers to `headers`;
 * answers 304 with them and no body when the request's conditions say the
 * caller holds this answer already: true when it did.
 */
export type WriteCacheHeaders = (
  call: Call,
  headers: Record<string, string>,
  result: EndpointResult,
  format: BodyFormat,
) => boolean;

/** WriteCacheHeaders naming `staleIfErrorSeconds` (STALE_IF_ERROR_SECONDS; 0: none) in Cache-Control. */
export function createCacheHeadersWriter(staleIfErrorSeconds: number): WriteCacheHeaders {
  return (call, headers, result, format) => {
    headers.vary = call.cors.vary(varyKeyed);
    const etag = setCacheHeaders(headers, result, entityForms[format]!, staleIfErrorSeconds);
    if (!requestNotModified(call.head.headers, etag, result.computation.computedAt)) return false;
    call.reply(304, headers, emptyBody);
    return true;
  };
}
