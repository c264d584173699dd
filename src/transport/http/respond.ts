// Writing GET responses: JSON bodies with their length, HEAD without a body.
// (The CORS headers come from transport/cors.ts: set before these write, or among a hit's own headers.)
import type { HttpRequest, HttpResponse } from "../node-http/index.js";

export function sendBytes(
  request: HttpRequest,
  response: HttpResponse,
  status: number,
  bytes: Buffer,
  headers: Record<string, string> = {},
): void {
  writeResponse(
    request,
    response,
    status,
    { "content-type": "application/json; charset=utf-8", "content-length": String(bytes.length), ...headers },
    bytes,
  );
}

/** Writes a whole response: `headers` as given (content-type and content-length included), no body to HEAD. */
export function writeResponse(
  request: HttpRequest,
  response: HttpResponse,
  status: number,
  headers: Record<string, string>,
  body: Buffer,
): void {
  const writable = response as unknown as {
    writeHead(status: number, headers: Record<string, string>): void;
    end(body?: Buffer): void;
  };
  writable.writeHead(status, headers);
  writable.end(request.method === "HEAD" ? undefined : body);
}

/** A response without a body, such as 204 to a CORS preflight. */
export function sendEmpty(response: HttpResponse, status: number, headers: Record<string, string>): void {
  const writable = response as unknown as {
    writeHead(status: number, headers: Record<string, string>): void;
    end(): void;
  };
  writable.writeHead(status, headers);
  writable.end();
}

export function sendJson(
  request: HttpRequest,
  response: HttpResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  sendBytes(request, response, status, Buffer.from(JSON.stringify(body)), headers);
}
