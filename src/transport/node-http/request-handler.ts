// Node's HTTP/1.1 and HTTP/2 request and response as one type each, the CORS headers, and a handler's 500.
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

/** Headers every answer to a request carries: the CORS headers of transport/cors.ts. */
export type CorsHeaders = Readonly<Record<string, string>>;

/** Sets `corsHeaders` on `response`, for an answer not written in one writeHead with them. */
export function setCorsHeaders(response: HttpResponse, corsHeaders: CorsHeaders): void {
  const writable = response as unknown as { setHeader(name: string, value: string): void };
  for (const name in corsHeaders) writable.setHeader(name, corsHeaders[name]!);
}

/**
 * A new header object holding `corsHeaders`, for an answer's own headers to
 * be added to and written at once (writeHead, respond): copied, not spread,
 * which V8 builds more slowly.
 */
export function copyCorsHeaders(corsHeaders: CorsHeaders): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const name in corsHeaders) fields[name] = corsHeaders[name]!;
  return fields;
}

/**
 * What a request's handler threw: a 500 and an error line. Handlers that go
 * on with a request in a promise's callback (after a token's first check,
 * say) end that promise with this, since the server's guard cannot see what
 * those throw.
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
