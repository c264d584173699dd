// The request and response of Node's HTTP/1.1 and HTTP/2 servers, one type
// each for both versions, and what every handler does with an exception.
import type { connectNodeAdapter } from "@connectrpc/connect-node";
import type { Logger } from "../../observability/index.js";

/** A handler for both HTTP versions, as connectNodeAdapter returns. */
export type RequestHandler = ReturnType<typeof connectNodeAdapter>;
export type HttpRequest = Parameters<RequestHandler>[0];
export type HttpResponse = Parameters<RequestHandler>[1];

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
