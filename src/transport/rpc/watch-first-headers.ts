// The response headers of an RPC watch stream: connect-node sends a
// server-streaming handler's response headers with its first message, so
// the first result's validators (ETag, Last-Modified, Cache-Status) and its
// warehouse statistics go as headers, set before that message is yielded.
import type { HandlerContext } from "@connectrpc/connect";
import type { EndpointResult } from "../../endpoints/index.js";
import { cacheHeaders } from "../node-http/index.js";
import { messageForm } from "./rpc-cache-headers.js";
import { setStatistics } from "./statistics-trailers.js";

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
