// The response headers of an RPC watch stream: connect-node sends a
// server-streaming handler's response headers with its first message, so
// the first result's validators (ETag, Last-Modified, Cache-Status) and its
// warehouse statistics go as headers, set before that message is yielded.
import type { HandlerContext } from "@connectrpc/connect";
import type { EndpointResult } from "../../endpoints/index.js";
import { cacheHeaders } from "../node-http/index.js";
import { messageForm } from "./rpc-cache-headers.js";
import { setStatistics, statisticsFieldsOf } from "./statistics-trailers.js";
import type { UnaryRequestForm } from "./unary-request.js";

/** Sets the first result's validators and statistics on the stream's response headers. */
export function setFirstResultHeaders(context: HandlerContext, result: EndpointResult): void {
  // A stream is never a Connect GET: its content type alone says binary or JSON.
  const binary = !(context.requestHeader.get("content-type") ?? "").includes("json");
  const headers = cacheHeaders(result, messageForm(binary), 0);
  context.responseHeader.set("etag", headers.etag);
  context.responseHeader.set("last-modified", headers["last-modified"]);
  context.responseHeader.set("cache-status", headers["cache-status"]);
  setStatistics(context.responseHeader, result);
}

// Made once per computation and form: every watcher of a key shares its first result's header values.
const firstHeaders = new WeakMap<object, Map<string, Record<string, string>>>();

/** A result's validators and statistics, with the content type and compression of `form`. */
export function firstHeadersOf(result: EndpointResult, form: UnaryRequestForm): Record<string, string> {
  // Cache-Status names the time to live left: results of one computation differ by their age.
  const { cache } = result;
  const age = cache === undefined ? "" : `${cache.status} ${cache.forced === true} ${cache.ageSeconds}`;
  const name = `${form.protocol}+${form.binary ? "proto" : "json"}+${form.compression?.name ?? ""} ${age}`;
  let byForm = firstHeaders.get(result.computation);
  if (byForm === undefined) firstHeaders.set(result.computation, (byForm = new Map()));
  let headers = byForm.get(name);
  if (headers === undefined) {
    const cache = cacheHeaders(result, messageForm(form.binary), 0);
    headers = {
      "cache-status": cache["cache-status"],
      "content-type": `application/${form.protocol}+${form.binary ? "proto" : "json"}`,
      etag: cache.etag,
    };
    if (form.compression !== null) headers["grpc-encoding"] = form.compression.name;
    headers["last-modified"] = cache["last-modified"];
    Object.assign(headers, statisticsFieldsOf(result));
    byForm.set(name, headers);
  }
  return headers;
}
