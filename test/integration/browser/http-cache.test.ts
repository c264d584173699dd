// Chromium's own HTTP cache in front of the service, from a page on another
// origin: a second fetch of a cached GET within its lifetime is answered by
// the browser (no request reaches the service), and a `cache: "no-cache"`
// fetch and a logs.all fetch revalidate with If-None-Match, a 304 that the
// page reads as the same rows. A recording proxy in front counts requests.
import { createServer, request as httpRequest, type Server } from "node:http";
import type { Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, skipWithoutChromium, type TestBrowser } from "../../support/browser.js";
import { TEST_API_KEY, useScenarioServer, type TestServer } from "../../support/test-server.js";

const skip = skipWithoutChromium("http-cache.test.ts");

/** What the recording proxy saw: each request's path, If-None-Match and answer status. */
interface Seen {
  path: string;
  ifNoneMatch?: string;
  status: number;
}

describe.skipIf(skip)("Chromium's HTTP cache", () => {
  const scenario = useScenarioServer();
  let server: TestServer;
  let pageServer: Server;
  let proxy: Server;
  let proxyUrl: string;
  let browser: TestBrowser;
  let page: Page;
  const seen: Seen[] = [];

  beforeAll(async () => {
    server = scenario.server();
    const target = new URL(server.url);
    proxy = createServer((request, response) => {
      const forwarded = httpRequest(
        {
          host: target.hostname,
          port: target.port,
          method: request.method,
          path: request.url,
          headers: request.headers,
        },
        (answer) => {
          if (request.method !== "OPTIONS")
            seen.push({
              path: request.url!,
              ifNoneMatch: request.headers["if-none-match"],
              status: answer.statusCode!,
            });
          response.writeHead(answer.statusCode!, answer.headers);
          answer.pipe(response);
        },
      );
      request.pipe(forwarded);
    });
    await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
    proxyUrl = `http://127.0.0.1:${(proxy.address() as { port: number }).port}`;
    pageServer = createServer((_request, response) => {
      response.writeHead(200, { "content-type": "text/html" });
      response.end("<!doctype html><title>another origin</title>");
    });
    await new Promise<void>((resolve) => pageServer.listen(0, "127.0.0.1", resolve));
    browser = await launchBrowser();
    ({ page } = await browser.newPage());
    await page.goto(`http://localhost:${(pageServer.address() as { port: number }).port}/`);
  });
  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => pageServer?.close(resolve));
    await new Promise((resolve) => proxy?.close(resolve));
  });

  /** A fetch from the page: its status, rows and request id as the page reads them. */
  const pageFetch = (path: string, cache: RequestCache = "default") =>
    page.evaluate(
      async (url: string, key: string, mode: RequestCache) => {
        const response = await fetch(url, { headers: { "x-api-key": key }, cache: mode });
        const body = (await response.json()) as { result: unknown[] };
        return { status: response.status, rows: body.result, requestId: response.headers.get("x-request-id") };
      },
      `${proxyUrl}${path}`,
      TEST_API_KEY,
      cache,
    );
  const requestsOf = (path: string) => seen.filter((s) => s.path === path);

  it("answers a second fetch of a cached GET from the browser's cache", async () => {
    const path = "/api/endpoints/usage.api-counts?project=rpc&interval=daily";
    const first = await pageFetch(path);
    const second = await pageFetch(path);
    expect(first.status).toBe(200);
    expect(second).toEqual(first); // the stored answer: the same request id
    expect(requestsOf(path).map((s) => s.status)).toEqual([200]);
  });

  it("revalidates a no-cache fetch with If-None-Match and reads the 304 as the same rows", async () => {
    const path = "/api/endpoints/functions.invocation-stats?project=rpc&interval=1hr";
    const first = await pageFetch(path);
    const again = await pageFetch(path, "no-cache");
    expect([again.status, again.rows]).toEqual([200, first.rows]);
    const requests = requestsOf(path);
    expect(requests.map((s) => s.status)).toEqual([200, 304]);
    expect(requests[1]!.ifNoneMatch).toMatch(/^W\/"[A-Za-z0-9_-]{22}-json"$/);
  });

  it("revalidates a logs.all fetch, never stored as fresh, with If-None-Match", async () => {
    const path = "/api/endpoints/logs.all?project=rpc";
    const first = await pageFetch(path);
    const again = await pageFetch(path);
    expect([again.status, again.rows]).toEqual([200, first.rows]);
    expect(requestsOf(path).map((s) => s.status)).toEqual([200, 304]);
  });
});
