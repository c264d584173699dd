// The caller's freshness, cache headers and warehouse statistics of an RPC answer of a saved query, named and
// ordered as connect-node writes them (docs/usage-accounting.md).
import type { HandlerContext } from "@connectrpc/connect";
import { type EndpointResult, type Freshness, freshnessFrom } from "../../endpoints/index.js";
import {
  type CacheHeaders,
  type CorsDecision,
  cacheHeaders,
  type EntityForm,
  statisticsFieldsOf,
  varyCredential,
} from "../call/index.js";

/** An RPC answer's own Vary: its coding and credential (CORS adds Origin when it varies by it). */
const varyKeyed = `Accept-Encoding, ${varyCredential}`;

/** Server-Timing, X-Bytes-Read and X-Rows-Read of a result, sorted by name. */
export type StatisticsFields = Record<string, string>;

/** Sets `result`'s statistics on a handler's headers (Connect) or trailers (gRPC, gRPC-Web). */
export function setStatistics(target: Headers, result: EndpointResult): void {
  for (const [name, value] of Object.entries(statisticsFieldsOf(result))) target.set(name, value);
}

/** The caller's freshness from request headers or metadata; undefined when it asks none. */
export function rpcFreshness(headers: Headers): Freshness | undefined {
  const cacheControl = headers.get("cache-control");
  const pragma = headers.get("pragma");
  if (cacheControl === null && pragma === null) return undefined;
  return freshnessFrom(cacheControl ?? undefined, pragma ?? undefined);
}

/** A binary message's entity form, or its proto3 JSON's. */
export function messageForm(binary: boolean): EntityForm {
  return binary ? "proto" : "proto-json";
}

/** The validators and cache headers of `result` as a binary or JSON message, with Vary. */
export function rpcCacheHeaders(
  result: EndpointResult,
  binary: boolean,
  cors: CorsDecision,
  staleIfErrorSeconds: number,
): CacheHeaders & { vary: string } {
  const headers = cacheHeaders(result, messageForm(binary), staleIfErrorSeconds) as CacheHeaders & { vary: string };
  headers.vary = cors.vary(varyKeyed);
  return headers;
}

/** A watch stream's headers, sent with its first message: the first result's validators and statistics, sorted. */
export function firstResultFields(result: EndpointResult, binary: boolean): Record<string, string> {
  const headers = cacheHeaders(result, messageForm(binary), 0);
  return {
    "cache-status": headers["cache-status"],
    etag: headers.etag,
    "last-modified": headers["last-modified"],
    ...statisticsFieldsOf(result),
  };
}

/** Sets firstResultFields on a watch stream's router headers; never a Connect GET, its content type says JSON. */
export function setFirstResultHeaders(context: HandlerContext, result: EndpointResult): void {
  const binary = !(context.requestHeader.get("content-type") ?? "").includes("json");
  for (const [name, value] of Object.entries(firstResultFields(result, binary)))
    context.responseHeader.set(name, value);
}
