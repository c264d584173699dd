// `npm run import` through a service, against a small fake of the import
// route: the NDJSON streamed as the body with its content type and key, the
// rows inserted read back, a 400's bad lines said by number, a refused key
// named, and a service that is not there told apart from one that refuses.
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postImport, ServiceUnreachableError } from "../../src/cli/import-client.js";
import { configuredServiceUrl, importThroughService } from "../../src/cli/import-through-service.js";

interface Received {
  method: string;
  url: string;
  contentType: string | undefined;
  key: string | undefined;
  body: string;
}

const received: Received[] = [];
let server: Server;
let url: string;

/** Answers as the contract says: 401 without the key, 400 naming bad lines, else the rows inserted. */
async function route(request: IncomingMessage): Promise<{ status: number; body: unknown }> {
  let body = "";
  for await (const chunk of request) body += chunk;
  received.push({
    method: request.method!,
    url: request.url!,
    contentType: request.headers["content-type"],
    key: request.headers["x-api-key"] as string | undefined,
    body,
  });
  if (request.headers["x-api-key"] !== "right-key-0123456789")
    return {
      status: 401,
      body: { error: { code: "unauthenticated", message: "missing or invalid API key", details: [] } },
    };
  const lines = body.split("\n").filter((line) => line !== "");
  const bad = lines.flatMap((line, i) => (line.startsWith("{") ? [] : [i + 1]));
  if (bad.length > 0)
    return {
      status: 400,
      body: {
        error: {
          code: "invalid_argument",
          message: `${bad.length} bad lines; nothing was inserted`,
          details: bad.map((n) => ({ field: `line ${n}`, description: "not valid JSON" })),
        },
      },
    };
  return { status: 200, body: { inserted: lines.length } };
}

beforeAll(async () => {
  server = createServer((request, response) => {
    void route(request).then(({ status, body }) => {
      response.writeHead(status, { "content-type": "application/json" });
      response.end(JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

async function* chunks(...parts: string[]) {
  for (const part of parts) yield Buffer.from(part);
}

describe("npm run import through a service", () => {
  it("streams the NDJSON to POST /api/import/<table> with its type and key, and reads the rows inserted", async () => {
    received.length = 0;
    const answer = await postImport({
      url,
      table: "edge_logs",
      key: "right-key-0123456789",
      body: chunks('{"a":1}\n{"a"', ":2}\n", '{"a":3}\n'),
    });
    expect(answer).toEqual({ ok: true, inserted: 3 });
    expect(received).toEqual([
      {
        method: "POST",
        url: "/api/import/edge_logs",
        contentType: "application/x-ndjson",
        key: "right-key-0123456789",
        body: '{"a":1}\n{"a":2}\n{"a":3}\n',
      },
    ]);
  });

  it("says each bad line of a 400 by number and fails with the service's message", async () => {
    const said: string[] = [];
    const outcome = await importThroughService({
      url,
      key: "right-key-0123456789",
      table: "auth_logs",
      source: { stdin: chunks('{"a":1}\nnope\n{"a":3}\n{\n', "x\n") },
      say: (line) => said.push(line),
    }).catch((error: Error) => error.message);
    expect(said).toEqual([
      `sending standard input to the service at ${url}`,
      "line 2: not valid JSON",
      "line 5: not valid JSON",
    ]);
    expect(outcome).toBe(
      `the service at ${url} refused the import (invalid_argument: 2 bad lines; nothing was inserted)`,
    );
  });

  it("names a refused key, with what to do", async () => {
    const outcome = await importThroughService({
      url,
      key: "wrong-key-0123456789",
      table: "edge_logs",
      source: { stdin: chunks('{"a":1}\n') },
      say: () => {},
    }).catch((error: Error) => error.message);
    expect(outcome).toBe(
      `the service at ${url} refused the key (unauthenticated: missing or invalid API key); set API_KEYS to a key it accepts`,
    );
  });

  it("tells a service that is not there apart, having said nothing", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const said: string[] = [];
    const outcome = await importThroughService({
      url: `http://127.0.0.1:${port}`,
      key: undefined,
      table: "edge_logs",
      source: { stdin: chunks('{"a":1}\n') },
      say: (line) => said.push(line),
    }).catch((error: Error) => error);
    expect(outcome).toBeInstanceOf(ServiceUnreachableError);
    expect((outcome as Error).message).toBe(`no service answers at http://127.0.0.1:${port} (ECONNREFUSED)`);
    expect(said).toEqual([]);
  });

  it.each([
    ["127.0.0.1", "http://127.0.0.1:8080"],
    ["0.0.0.0", "http://127.0.0.1:8080"],
    ["::", "http://[::1]:8080"],
    ["fd00::5", "http://[fd00::5]:8080"],
  ])("reaches HOST %s at %s", (host, expected) => {
    expect(configuredServiceUrl({ host, port: 8080 })).toBe(expected);
  });
});
