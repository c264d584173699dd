// The explorer page as the service sends it (GET /): no key needed, its
// security headers, compressed copies, revalidation, its size, and off when
// not configured. What it does in a browser: test/integration/browser/.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../../../src/observability/index.js";
import type { Warehouse } from "../../../src/warehouse/index.js";
import { builtExplorerPage } from "../../support/browser.js";
import { openTestWarehouse } from "../../support/embedded-warehouse.js";
import { NOW } from "../../support/scenario.js";
import { startTestServer, type TestServer } from "../../support/test-server.js";

let warehouse: Warehouse;
let server: TestServer;
let off: TestServer;
let unbuilt: TestServer;
let listed: TestServer;
const warnings: string[] = [];

beforeAll(async () => {
  warehouse = await openTestWarehouse();
  server = await startTestServer(warehouse, NOW, { explorer: { directory: builtExplorerPage } });
  off = await startTestServer(warehouse, NOW);
  listed = await startTestServer(warehouse, NOW, {
    explorer: { directory: builtExplorerPage },
    corsOrigins: ["https://app.example.com"],
  });
  const logger = createLogger({ level: "warn", write: (line) => warnings.push(JSON.parse(line).msg) });
  unbuilt = await startTestServer(warehouse, NOW, {
    explorer: { directory: `${builtExplorerPage}/missing` },
    logger,
  });
});
afterAll(async () => {
  await Promise.all([server, off, unbuilt, listed].map((s) => s?.close()));
  await warehouse?.close();
});

describe("GET /", () => {
  it("sends the page without a key, with a policy allowing no inline script, no eval, no framing", async () => {
    const response = await fetch(`${server.url}/`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    const policy = response.headers.get("content-security-policy")!;
    const directives = new Map(policy.split(/;\s*/).map((d) => [d.split(" ")[0], d.split(" ").slice(1)]));
    expect(directives.get("script-src")).toEqual(["'self'"]);
    expect(directives.get("frame-ancestors")).toEqual(["'none'"]);
    expect(directives.get("connect-src")).toEqual(["'self'"]);
    expect(policy).not.toMatch(/unsafe-inline|unsafe-eval|https?:/);
    const html = await response.text();
    expect(html).toContain('<label for="key">API key</label>');
    // No inline script, no script or style from another host.
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
  });

  it("keeps the view (the fragment aside) in its address: GET /?anything is the page too", async () => {
    expect((await fetch(`${server.url}/?endpoint=logs.all`)).status).toBe(200);
  });

  it("sends the script and style compressed when asked, and a 304 for an unchanged copy", async () => {
    const script = await fetch(`${server.url}/explorer.js`, { headers: { "accept-encoding": "br" } });
    expect(script.status).toBe(200);
    expect(script.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(script.headers.get("content-encoding")).toBe("br");
    const etag = script.headers.get("etag")!;
    const again = await fetch(`${server.url}/explorer.js`, { headers: { "if-none-match": etag } });
    expect(again.status).toBe(304);
    const style = await fetch(`${server.url}/explorer.css`);
    expect(style.headers.get("content-type")).toBe("text/css; charset=utf-8");
    expect(await style.text()).toContain(".uplot");
  });

  it("varies by Origin and Accept-Encoding when CORS_ORIGINS is a list, by Accept-Encoding alone for any origin", async () => {
    const fromApp = { origin: "https://app.example.com", "accept-encoding": "gzip" };
    const [listedPage, anyPage] = await Promise.all([
      fetch(`${listed.url}/explorer.js`, { headers: fromApp }),
      fetch(`${server.url}/explorer.js`, { headers: fromApp }),
    ]);
    expect(listedPage.headers.get("vary")).toBe("Origin, Accept-Encoding");
    expect(anyPage.headers.get("vary")).toBe("Accept-Encoding");
  });

  it("weighs under 150 KB gzip, page, script and style together", async () => {
    let total = 0;
    for (const path of ["/", "/explorer.js", "/explorer.css"]) {
      // Content-Length is the compressed size (fetch hands back the body decompressed).
      const response = await fetch(`${server.url}${path}`, { headers: { "accept-encoding": "gzip" } });
      expect(response.headers.get("content-encoding")).toBe("gzip");
      total += Number(response.headers.get("content-length"));
      await response.arrayBuffer();
    }
    expect(total).toBeGreaterThan(1_000);
    expect(total).toBeLessThan(150 * 1024);
  });

  it("is not served when the explorer is not configured (EXPLORER=0)", async () => {
    expect((await fetch(`${off.url}/`)).status).toBe(404);
    expect((await fetch(`${off.url}/explorer.js`)).status).toBe(404);
  });

  it("answers 503 and warns at start when the page was not built", async () => {
    const response = await fetch(`${unbuilt.url}/`);
    expect(response.status).toBe(503);
    expect(await response.text()).toContain("npm run build");
    expect(warnings).toEqual(["explorer not built; GET / answers 503"]);
  });
});
