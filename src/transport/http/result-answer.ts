// The 200 answer of a GET call's result: its body in the asked format and
// content coding, cache headers (and a 304 when the caller's copy is still
// the answer: If-None-Match, If-Modified-Since), Server-Timing, paging link,
// whether rows were left out, a deprecated version's Deprecation and Sunset,
// and the rows and bytes its query read.
import type { EndpointResult } from "../../endpoints/index.js";
import {
  type EntityForm,
  requestNotModified,
  setCacheHeaders,
  type ValidatedCall,
  varyCredential,
  warehouseTimingOf,
} from "../node-http/index.js";
import { bodyFormats } from "./body-formats.js";
import {
  type ContentEncoding,
  encodingFromAcceptEncoding,
  encodings,
  formatFromAccept,
  IDENTITY,
  JSON_FORMAT,
} from "./content-negotiation.js";
import { nextPageLink } from "./next-page-link.js";
import { createCompressor, createResponseBodies } from "./response-body.js";

const contentTypes = bodyFormats.map((f) => f.contentType);
/** Each format's entity form, by number. */
const entityForms = bodyFormats.map((f) => f.name as EntityForm);
const varyKeyed = `Accept, Accept-Encoding, ${varyCredential}`;
const emptyBody = Buffer.alloc(0);

/** Writes the answer of `result` to `call`; `lookupMs` is the cache lookup's time. */
export type SendResult = (call: ValidatedCall, result: EndpointResult, lookupMs: number) => void;

/**
 * Answers 200 with the CORS headers (unless set on the response already),
 * then the result's body in the asked format and coding, its cache headers
 * (Cache-Control naming `staleIfErrorSeconds`, STALE_IF_ERROR_SECONDS; 0
 * names none), Server-Timing, and the rows and bytes read when known (for a
 * hit, those of the computation it was made by); or 304 with no body.
 */
export function createResultAnswer(staleIfErrorSeconds: number): SendResult {
  const bodies = createResponseBodies(createCompressor());
  return (call, result, lookupMs) => {
    const requestHeaders = call.head.headers;
    const accept = requestHeaders.accept;
    const format = call.prepared.format ?? (accept === undefined ? JSON_FORMAT : formatFromAccept(accept));
    const acceptEncoding = requestHeaders["accept-encoding"];
    const encoding: ContentEncoding =
      acceptEncoding === undefined ? IDENTITY : encodingFromAcceptEncoding(acceptEncoding);
    const headers = call.corsHeadersToWrite();
    headers["x-request-id"] = call.requestId;
    headers.vary = call.cors.vary(varyKeyed);
    const etag = setCacheHeaders(headers, result, entityForms[format]!, staleIfErrorSeconds);
    if (requestNotModified(requestHeaders, etag, result.computation.computedAt))
      return call.reply(304, headers, emptyBody);
    const hit = result.cache?.status === "HIT";
    let body = hit ? bodies.ready(result, format, encoding) : undefined;
    let serializeMs: number | undefined;
    if (body === undefined) {
      const before = performance.now();
      body = bodies.make(result, call.prepared.endpoint, format, encoding);
      serializeMs = performance.now() - before;
    }
    headers["content-type"] = contentTypes[format]!;
    headers["content-length"] = String(body.length);
    headers["server-timing"] = serverTiming(result, lookupMs, serializeMs);
    if (encoding !== IDENTITY) headers["content-encoding"] = encodings[encoding];
    const page = call.prepared.page;
    if (result.nextPageToken !== undefined && page !== undefined)
      headers.link = nextPageLink(call.head.url ?? "/", page.parameter, result.nextPageToken);
    const { deprecation } = call.prepared.endpoint;
    if (deprecation !== undefined) Object.assign(headers, deprecation.headers);
    const { statistics, truncation } = result.computation;
    // In every format: a CSV or NDJSON body has nowhere else to say it.
    headers["x-result-truncated"] = truncation.truncated ? "true" : "false";
    headers["x-rows-before-limit"] = String(truncation.rowsBeforeLimitAtLeast);
    if (statistics !== undefined) {
      headers["x-rows-read"] = String(statistics.rowsRead);
      headers["x-bytes-read"] = String(statistics.bytesRead);
    }
    call.reply(200, headers, body);
    call.responseBytes = call.head.method === "HEAD" ? 0 : body.length;
  };
}

/**
 * `cache;desc="hit";dur=…` and the warehouse time of the computation that
 * made it for a hit (with `serialize` when its body had to be made); for a
 * computed result the cache lookup (when the endpoint is
 * cached), the warehouse query and the serialisation, in milliseconds.
 */
function serverTiming(result: EndpointResult, lookupMs: number, serializeMs: number | undefined): string {
  const made = serializeMs === undefined ? "" : `, serialize;dur=${serializeMs.toFixed(3)}`;
  if (result.cache?.status === "HIT")
    return `cache;desc="hit";dur=${lookupMs.toFixed(3)}, ${warehouseTimingOf(result)}${made}`;
  const computedMs = result.computation.serializeMs;
  const cache = result.cache === undefined ? "" : `cache;desc="miss";dur=${lookupMs.toFixed(3)}, `;
  return `${cache}${warehouseTimingOf(result)}, serialize;dur=${(computedMs + (serializeMs ?? 0)).toFixed(3)}`;
}
