// withCors's hand-over of an answer's CORS headers, with a fake request and
// response: the handler is given them instead of finding them set, and a
// handler that throws before answering leaves them set for the server's 500,
// on HTTP/1.1 and on a bare HTTP/2 stream (there with a real node:http2 server
// and client).
import { connect, createServer as createHttp2Server } from "node:http2";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { silentLogger } from "../../src/observability/index.js";
import { withCors, withCorsStreams } from "../../src/transport/cors.js";
import { serveStreams } from "../../src/transport/h2-streams.js";
import type { CorsHeaders, HttpRequest, HttpResponse } from "../../src/transport/call/index.js";

function fakes(origin?: string) {
  const request = { method: "GET", url: "/api/endpoints", headers: origin === undefined ? {} : { origin } };
  const set: Record<string, string> = {};
  const response = { headersSent: false, setHeader: (name: string, value: string) => void (set[name] = value) };
  return { request: request as unknown as HttpRequest, response: response as unknown as HttpResponse, set };
}

describe("withCors", () => {
  it("hands the handler the headers of an answer to any origin, setting none", () => {
    const { request, response, set } = fakes("https://page.example");
    let given: CorsHeaders | undefined;
    withCors((call) => void (given = call.cors.headers))(request, response);
    expect(given).toEqual({
      "access-control-allow-origin": "*",
      "access-control-expose-headers": expect.stringContaining("X-Cache"),
      "timing-allow-origin": "*",
    });
    expect(set).toEqual({});
  });

  it("with a list of origins, hands Vary: Origin first, and the rest only to an allowed origin", () => {
    const given: CorsHeaders[] = [];
    const handler = withCors((call) => void given.push(call.cors.headers), {
      origins: ["https://page.example"],
    });
    for (const origin of ["https://page.example", "https://other.example", undefined]) {
      const { request, response } = fakes(origin);
      handler(request, response);
    }
    expect(Object.keys(given[0]!)).toEqual([
      "vary",
      "access-control-allow-origin",
      "access-control-expose-headers",
      "timing-allow-origin",
    ]);
    expect(given[0]!["access-control-allow-origin"]).toBe("https://page.example");
    expect(given.slice(1)).toEqual([{ vary: "Origin" }, { vary: "Origin" }]);
  });

  it("sets them when the handler throws before answering, for the 500 the server writes", () => {
    const { request, response, set } = fakes("https://page.example");
    const failing = withCors(() => {
      throw new Error("boom");
    });
    expect(() => failing(request, response)).toThrow("boom");
    expect(set["access-control-allow-origin"]).toBe("*");
    expect(set["timing-allow-origin"]).toBe("*");
  });
});

describe("withCorsStreams", () => {
  it("leaves an answer's CORS headers on the 500 a bare HTTP/2 stream gets when its handler throws before answering", async () => {
    const server = createHttp2Server();
    const logged: string[] = [];
    const logger = { ...silentLogger, error: (message: string) => void logged.push(message) };
    const streams = withCorsStreams(
      () => {
        throw new Error("boom");
      },
      () => {},
    );
    serveStreams(server, { streams, handler: () => {}, logger });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const client = connect(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    try {
      const head = await new Promise<Record<string, unknown>>((resolve, reject) => {
        const request = client.request({ ":path": "/api/endpoints", origin: "https://page.example" });
        request.on("response", resolve).on("error", reject).end();
        request.resume();
      });
      expect(head[":status"]).toBe(500);
      expect(head["access-control-allow-origin"]).toBe("*");
      expect(head["access-control-expose-headers"]).toContain("X-Request-Id");
      expect(logged).toEqual(["request handler threw"]);
    } finally {
      client.close();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
