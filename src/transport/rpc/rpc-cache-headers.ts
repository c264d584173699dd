// The cache side of an RPC answer of a saved query: the caller's freshness
// from its `cache-control` header or metadata (and `pragma`), and the
// validators and cache headers of its result, as headers or metadata on
// Connect, gRPC and gRPC-Web alike, for a unary answer and for the first
// message of a watch stream.
import type { HandlerContext } from "@connectrpc/connect";
import { type Freshness, freshnessFrom, type EndpointResult } from "../../endpoints/index.js";
import { cacheHeaders, type CorsDecision, type EntityForm, varyCredential } from "../node-http/index.js";
import { statisticsFieldsOf } from "./statistics-trailers.js";

/** An RPC answer's own Vary: its coding and credential (CORS adds Origin when it varies by it). */
export const varyKeyed = `Accept-Encoding, ${varyCredential}`;

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

/** How an RPC answer names its cache headers: its entity form, CORS's Vary and STALE_IF_ERROR_SECONDS. */
export interface RpcCacheForm {
  form: EntityForm;
  cors: CorsDecision;
  staleIfErrorSeconds: number;
}

/** Each cache header of `result` in its form, with Vary, handed to `set`. */
export function setRpcCacheHeaders(
  set: (name: string, value: string) => void,
  result: EndpointResult,
  { form, cors, staleIfErrorSeconds }: RpcCacheForm,
): void {
  const headers = cacheHeaders(result, form, staleIfErrorSeconds);
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) set(name, value);
  set("vary", cors.vary(varyKeyed));
}

/**
 * The response headers of a watch stream, sent with its first message: the
 * first result's validators (ETag, Last-Modified, Cache-Status) and its
 * statistics, sorted by name as connect-node sends them. A stream is never a
 * Connect GET: its content type alone says binary or JSON.
 */
export function firstResultFields(result: EndpointResult, binary: boolean): Record<string, string> {
  const headers = cacheHeaders(result, messageForm(binary), 0);
  return {
    "cache-status": headers["cache-status"],
    etag: headers.etag,
    "last-modified": headers["last-modified"],
    ...statisticsFieldsOf(result),
  };
}

/** Sets the first result's fields (firstResultFields) on the router's response headers of a watch stream. */
export function setFirstResultHeaders(context: HandlerContext, result: EndpointResult): void {
  const binary = !(context.requestHeader.get("content-type") ?? "").includes("json");
  for (const [name, value] of Object.entries(firstResultFields(result, binary)))
    context.responseHeader.set(name, value);
}
