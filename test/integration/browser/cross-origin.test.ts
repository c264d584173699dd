// From a page on another origin (a second local HTTP server), in Chromium:
// Connect JSON, Connect binary, Connect GET, gRPC-Web and the GET API each
// read the rows, read a wrong key as unauthenticated, and read a bad
// parameter as invalid_argument with its field violations; which takes the
// CORS preflights and exposed headers of transport/cors.ts.
import { createServer, type Server } from "node:http";
import { join } from "node:path";
import { build } from "esbuild";
import type { Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Warehouse } from "../../../src/warehouse/index.js";
import { launchBrowser, skipWithoutChromium, type TestBrowser } from "../../support/browser.js";
import { openTestWarehouse } from "../../support/embedded-warehouse.js";
import { expectedInvocationStats, expectedLogIds, insertScenario, NOW } from "../../support/scenario.js";
import { startTestServer, TEST_API_KEY, type TestServer } from "../../support/test-server.js";

const skip = skipWithoutChromium("cross-origin.test.ts");
const transports = ["connect", "connect-binary", "connect-get", "grpc-web", "get"] as const;

interface PageResult {
  ok: boolean;
  code: string;
  rows: Record<string, unknown>[];
  violations: { field: string; description: string }[];
  headers: Record<string, string>;
}

describe.skipIf(skip)("calls from a page on another origin", () => {
  let warehouse: Warehouse;
  let server: TestServer;
  let pageServer: Server;
  let browser: TestBrowser;
  let page: Page;
  let errors: string[];
  let listing: { name: string }[];

  beforeAll(async () => {
    warehouse = await openTestWarehouse();
    await insertScenario(warehouse);
    server = await startTestServer(warehouse, NOW);
    listing = (
      (await (await fetch(`${server.url}/api/endpoints`, { headers: { "x-api-key": TEST_API_KEY } })).json()) as {
        result: { name: string }[];
      }
    ).result;
    // The explorer's own call code, bundled for a page of another origin.
    const bundle = await build({
      stdin: {
        contents: 'import { callEndpoint } from "./web/calls.ts"; Object.assign(window, { callEndpoint });',
        resolveDir: join(import.meta.dirname, "../../.."),
        loader: "ts",
      },
      bundle: true,
      format: "esm",
      platform: "browser",
      write: false,
      logLevel: "warning",
    });
    const script = bundle.outputFiles[0]!.contents;
    pageServer = createServer((request, response) => {
      if (request.url === "/client.js") {
        response.writeHead(200, { "content-type": "text/javascript" });
        return response.end(script);
      }
      response.writeHead(200, { "content-type": "text/html" });
      response.end('<!doctype html><title>another origin</title><script type="module" src="/client.js"></script>');
    });
    await new Promise<void>((resolve) => pageServer.listen(0, "127.0.0.1", resolve));
    const { port } = pageServer.address() as { port: number };
    browser = await launchBrowser();
    ({ page, errors } = await browser.newPage());
    // localhost, not 127.0.0.1: another host as well as another port.
    await page.goto(`http://localhost:${port}/`);
    await page.waitForFunction(() => "callEndpoint" in globalThis);
  });
  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => pageServer?.close(resolve));
    await server?.close();
    await warehouse?.close();
  });

  function call(endpoint: string, parameters: Record<string, string>, transport: string, key = TEST_API_KEY) {
    const listed = listing.find((e) => e.name === endpoint)!;
    return page.evaluate(
      async (listed, parameters, transport, key, base) => {
        const run = (globalThis as unknown as { callEndpoint: (...args: unknown[]) => Promise<PageResult> })
          .callEndpoint;
        const result = await run(listed, parameters, transport, key, base);
        return { ...result, headers: Object.fromEntries(result.headers as unknown as Headers) } as PageResult;
      },
      listed,
      parameters,
      transport,
      key,
      `${server.url}/`,
    );
  }

  it("is another origin than the service's", async () => {
    expect(new URL(page.url()).origin).not.toBe(new URL(server.url).origin);
  });

  it.each(transports)("reads the rows of a saved query over %s", async (transport) => {
    const stats = await call("functions.invocation-stats", { project: "rpc" }, transport);
    expect(stats.ok).toBe(true);
    expect(
      stats.rows.map((r) => [Date.parse(String(r.timestamp)), r.count, r.error_count, r.min_execution_time]),
    ).toEqual(expectedInvocationStats.map(([bucket, count, errorCount, min]) => [bucket, count, errorCount, min]));
    expect(stats.headers["x-cache"]).toMatch(/^(HIT|MISS)$/);
    const logs = await call("logs.all", { project: "rpc" }, transport);
    expect(logs.rows.map((r) => r.id)).toEqual([...expectedLogIds]);
    expect(logs.rows[0]!.metadata).toEqual([
      {
        request: [{ method: "GET", path: "/rest/v1/a", url: "https://rpc.supabase.co/rest/v1/a" }],
        response: [{ status_code: 200 }],
      },
    ]);
  });

  it.each(transports)("reads a wrong key as unauthenticated over %s", async (transport) => {
    const result = await call("logs.all", { project: "rpc" }, transport, "wrong-key-0123456789");
    expect(result.ok).toBe(false);
    expect(result.code).toBe("unauthenticated");
    expect(result.headers["x-request-id"]).toMatch(/\S/);
  });

  it.each(transports)(
    "reads a bad parameter as invalid_argument with its field violations over %s",
    async (transport) => {
      const result = await call("usage.api-counts", { interval: "weekly" }, transport);
      expect(result.ok).toBe(false);
      expect(result.code).toBe("invalid_argument");
      expect(result.violations.map((v) => v.field).sort()).toEqual(["interval", "project"]);
      expect(result.violations.find((v) => v.field === "interval")!.description).toBe(
        "interval must be one of hourly, daily, minutely",
      );
    },
  );

  it("runs with no script error in the page", () => {
    // The refused calls above are logged by Chromium as failed loads; anything else is an error of the page.
    expect(errors.filter((e) => !e.includes("Failed to load resource"))).toEqual([]);
  });
});
