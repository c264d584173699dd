// Writing GET responses: JSON bodies with their length, HEAD without a body.
// (The CORS headers come from transport/cors.ts: set on the response before
// these write, or among a hit's own headers.)
import { type HttpResponse, type RequestAndResponse, replyOn } from "../call/index.js";

export function sendBytes(
  exchange: RequestAndResponse,
  status: number,
  bytes: Buffer,
  headers: Record<string, string> = {},
): void {
  replyOn(
    exchange,
    status,
    { "content-type": "application/json; charset=utf-8", "content-length": String(bytes.length), ...headers },
    bytes,
  );
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
  exchange: RequestAndResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  sendBytes(exchange, status, Buffer.from(JSON.stringify(body)), headers);
}
