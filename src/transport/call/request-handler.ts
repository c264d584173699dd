// Node's HTTP/1.1 and HTTP/2 request and response as one type each, the CORS headers and decision every answer
// carries, the 100 Continue held for a route that checks its caller first, and a handler's 500.
import type { ServerResponse } from "node:http";
import type { IncomingHttpHeaders, ServerHttp2Stream } from "node:http2";
import type { connectNodeAdapter } from "@connectrpc/connect-node";
import type { Logger } from "../../observability/index.js";

/** A handler for both HTTP versions, as connectNodeAdapter returns. */
export type RequestHandler = ReturnType<typeof connectNodeAdapter>;
export type HttpRequest = Parameters<RequestHandler>[0];
export type HttpResponse = Parameters<RequestHandler>[1];

/** A request and its response, as Node's servers hand them to a request listener. */
export type RequestAndResponse = [request: HttpRequest, response: HttpResponse];

/** Makes a bare stream's compatibility request and response (Http2ServerRequest, Http2ServerResponse), once. */
export type MakeRequestAndResponse = () => RequestAndResponse;

/** Takes a bare HTTP/2 stream: answers it on the stream, or calls `makeRequestAndResponse` and goes on with those. */
export type StreamHandler = (
  stream: ServerHttp2Stream,
  headers: IncomingHttpHeaders,
  makeRequestAndResponse: MakeRequestAndResponse,
) => void;

/** What the fast paths read of a request: a Node request (HTTP/1.1 or HTTP/2) has it, and so has a bare stream's. */
export interface RequestHead {
  method?: string;
  /** Path and query. */
  url?: string;
  headers: IncomingHttpHeaders;
  httpVersionMajor: number;
}

/** Headers every answer to a request carries: the CORS headers of transport/cors.ts. */
export type CorsHeaders = Readonly<Record<string, string>>;

/** What CORS decided for every answer to a request (transport/cors.ts). */
export interface CorsDecision {
  readonly headers: CorsHeaders;
  /** The answer's whole Vary given its own fields `own` (a constant): Origin first when the headers differ by it. */
  vary(own: string): string;
}

/** The decision to answer with `headers`, whose answers vary by Origin when `varyOrigin`. */
export function corsDecision(headers: CorsHeaders, varyOrigin: boolean): CorsDecision {
  if (!varyOrigin) return Object.freeze({ headers, vary: (own: string) => own });
  const withOrigin = new Map<string, string>();
  const vary = (own: string): string => {
    let whole = withOrigin.get(own);
    if (whole === undefined) withOrigin.set(own, (whole = `Origin, ${own}`));
    return whole;
  };
  return Object.freeze({ headers, vary });
}

/** CORS that adds nothing (the metrics port, tests). */
export const noCors: CorsDecision = corsDecision(Object.freeze({}), false);

/** Sets `corsHeaders` on `response`, for an answer not written in one writeHead with them. */
export function setCorsHeaders(response: HttpResponse, corsHeaders: CorsHeaders): void {
  const writable = response as unknown as { setHeader(name: string, value: string): void };
  for (const name in corsHeaders) writable.setHeader(name, corsHeaders[name]!);
}

/**
 * A new header object holding `corsHeaders`, for an answer's own headers to be added to and written at once
 * (writeHead, respond): copied, not spread, which V8 builds more slowly.
 */
export function copyCorsHeaders(corsHeaders: CorsHeaders): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const name in corsHeaders) fields[name] = corsHeaders[name]!;
  return fields;
}

/**
 * What a request's handler threw: a 500 and an error line. Handlers that go on with a request in a promise's callback
 * (after a token's first check, say) end that promise with this, since the server's guard cannot see what those
 * throw.
 */
export function handlerThrew(request: HttpRequest, response: HttpResponse, error: unknown, logger: Logger): void {
  logger.error("request handler threw", { method: request.method, path: pathOf(request.url), error });
  const writable = response as unknown as {
    headersSent: boolean;
    writeHead(s: number, h: object): void;
    end(b?: string): void;
  };
  if (!writable.headersSent) {
    writable.writeHead(500, { "content-type": "application/json; charset=utf-8" });
    writable.end(JSON.stringify({ error: { code: "internal", message: "internal error", details: [] } }));
  }
}

/** The path of a request target, without the query string (which may hold a key or personal data). */
export function pathOf(url: string | undefined): string {
  const target = url ?? "/";
  const queryAt = target.indexOf("?");
  return queryAt < 0 ? target : target.slice(0, queryAt);
}

/** The query string of a request target, without its `?`; empty when it has none. */
export function queryOf(url: string | undefined): string {
  const target = url ?? "/";
  const queryAt = target.indexOf("?");
  return queryAt < 0 ? "" : target.slice(queryAt + 1);
}

/** Requests whose 100 Continue waits for their route to admit them: Node would send it before any handler runs. */
const held = new WeakSet<object>();

/** Holds back the 100 Continue of `request` until sendContinue; the server calls this for such routes. */
export function holdContinue(request: HttpRequest): void {
  held.add(request);
}

/** Sends the 100 Continue held back for `request`, if any: its route admitted it and reads its body next. */
export function sendContinue(request: HttpRequest, response: HttpResponse): void {
  if (!held.delete(request)) return;
  const http1 = response as unknown as ServerResponse;
  if (!http1.headersSent) http1.writeContinue();
}
