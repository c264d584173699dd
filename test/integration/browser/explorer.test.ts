// The explorer (GET /) in Chromium, found by its accessible names: each saved
// query run by each transport shows the same rows as a GET; the chart is
// drawn; hostile log text stays text; violations sit by their inputs; the key
// stays out of the address and localStorage; copy as curl is the exact call;
// a deprecated saved query is marked and bannered; a cut answer says so
// under its rows; no script error. With SCREENSHOTS=1 (npm run screenshots) it also writes
// docs/explorer.png.
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import type { ElementHandle, Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issueToken } from "../../../src/auth/index.js";
import type { Warehouse } from "../../../src/warehouse/index.js";
import { builtExplorerPage, launchBrowser, skipWithoutChromium, type TestBrowser } from "../../support/browser.js";
import { edgeRow, functionEdgeRow, insertRows, openTestWarehouse, ts } from "../../support/embedded-warehouse.js";
import { insertScenario, NOW } from "../../support/scenario.js";
import { startTestServer, TEST_API_KEY, type TestServer } from "../../support/test-server.js";

const skip = skipWithoutChromium("explorer.test.ts");
const SECRET = "explorer-test-secret-0123456789abcdef";
const HOSTILE_MESSAGE = `<img src=x onerror="document.title='pwned'"> GET | 200 | /`;
const HOSTILE_NOTE = "<script>document.title='pwned'</script><img src=x onerror=alert(1)>";
const calls = [
  ["functions.invocation-stats", { project: "rpc", interval: "1day" }],
  ["usage.api-counts", { project: "//rpc\\.", interval: "hourly" }],
  ["logs.all", { project: "rpc" }],
] as const;
const transports = ["get", "connect", "connect-binary", "connect-get", "grpc-web"] as const;
/** logs.all answers 100 rows a page (docs/endpoints.md, Paging): this project's rows fill one page and half of the next. */
const PAGED_ROWS = 150;

/** Rows as the explorer's table shows them: each value's text, an object or array as its summary. */
function asCells(rows: Record<string, unknown>[]): { head: string[]; body: string[][] } {
  const head = Object.keys(rows[0] ?? {});
  const cell = (name: string, value: unknown) =>
    Array.isArray(value)
      ? `${name} (${value.length})`
      : value !== null && typeof value === "object"
        ? name
        : String(value);
  return { head, body: rows.map((row) => head.map((name) => cell(name, row[name]))) };
}

/** A demo project for the chart: a call every 4 minutes over the day before NOW, times in a slow wave. */
function shopRows() {
  return Array.from({ length: 360 }, (_, i) =>
    functionEdgeRow({
      project: "shop",
      functionId: ["checkout", "search", "cart"][i % 3]!,
      timestamp: ts(NOW - (i * 4 + 1) * 60_000),
      executionTimeMs: Math.round(80 + 60 * Math.sin(i / 25) + (i % 9) * 6),
      status: i % 23 === 0 ? 500 : 200,
    }),
  );
}

describe.skipIf(skip)("the explorer in Chromium", () => {
  let warehouse: Warehouse;
  let server: TestServer;
  let browser: TestBrowser;
  let page: Page;
  let errors: string[];
  let runs = 0;

  beforeAll(async () => {
    warehouse = await openTestWarehouse();
    await insertScenario(warehouse);
    await insertRows(warehouse, "function_edge_logs", shopRows());
    const hostile = edgeRow({ project: "xss", id: "x1", timestamp: ts(NOW - 60_000) });
    const metadata = JSON.parse(hostile.metadata) as object[];
    await insertRows(warehouse, "edge_logs", [
      {
        ...hostile,
        event_message: HOSTILE_MESSAGE,
        metadata: JSON.stringify([{ ...metadata[0], note: HOSTILE_NOTE }]),
      },
    ]);
    await insertRows(
      warehouse,
      "edge_logs",
      Array.from({ length: PAGED_ROWS }, (_, n) => edgeRow({ project: "paged", timestamp: ts(NOW - (n + 1) * 1000) })),
    );
    server = await startTestServer(warehouse, NOW, {
      explorer: { directory: builtExplorerPage },
      tokens: { secret: SECRET },
    });
    browser = await launchBrowser();
    await browser.browser
      .defaultBrowserContext()
      .overridePermissions(server.url, ["clipboard-read", "clipboard-write", "clipboard-sanitized-write"]);
    ({ page, errors } = await browser.newPage());
    await page.setViewport({ width: 1280, height: 900 });
    await page.goto(`${server.url}/`);
    await page.waitForSelector("body[data-ready]");
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await warehouse?.close();
  });

  const byName = (role: string, name: string) => page.waitForSelector(`::-p-aria([name="${name}"][role="${role}"])`);

  async function typeInto(handle: ElementHandle | null, text: string): Promise<void> {
    await handle!.click({ count: 3 });
    await handle!.evaluate((input) => ((input as unknown as { value: string }).value = ""));
    await handle!.type(text);
  }

  async function useKey(key: string): Promise<void> {
    await typeInto(await byName("textbox", "API key"), key);
    await page.keyboard.press("Tab"); // the change event lists the saved queries
    await page.waitForFunction(() => document.querySelector("#status")?.getAttribute("data-state") !== "busy");
  }

  /** Chooses `endpoint`, fills `parameters` by their names, picks `transport`, presses Run and waits for the answer. */
  async function run(endpoint: string, parameters: Record<string, string>, transport: string): Promise<void> {
    await (await byName("combobox", "Endpoint"))!.select(endpoint);
    for (const [name, value] of Object.entries(parameters)) {
      const input = await page.$(`::-p-aria([name="${name}"])`);
      const tag = await input!.evaluate((e) => e.tagName);
      if (tag === "SELECT") await input!.select(value);
      else await typeInto(input, value);
    }
    await (await byName("combobox", "Transport"))!.select(transport);
    await (await byName("button", "Run"))!.click();
    runs += 1;
    await page.waitForFunction(
      (n) => document.querySelector("#status")?.getAttribute("data-call") === String(n),
      {},
      runs,
    );
  }

  const tableCells = () =>
    page.evaluate(() => {
      const table = document.querySelector("#results table");
      if (table === null) return { head: [], body: [] };
      return {
        head: [...table.querySelectorAll("thead th")].map((th) => th.textContent ?? ""),
        body: [...table.querySelectorAll("tbody tr")].map((tr) =>
          [...tr.querySelectorAll("td")].map((td) => td.textContent ?? ""),
        ),
      };
    });
  const fact = (name: string) => page.$eval(`[data-fact="${name}"]`, (dd) => dd.textContent ?? "");
  const statusText = () => page.$eval("#status", (p) => p.textContent ?? "");

  it("asks for a key first, and lists the saved queries the key may call", async () => {
    expect(await statusText()).toContain("Type an API key");
    await useKey(TEST_API_KEY);
    const listed = await page.$$eval("#endpoint option", (options) => options.map((o) => o.textContent));
    expect(listed).toEqual([
      "functions.invocation-stats",
      "usage.api-counts (deprecated)",
      "usage.api-counts.v2",
      "logs.all",
      "service.call-stats",
    ]);
  });

  /** A second page on the explorer, with nothing typed. */
  async function freshPage(): Promise<{ page: Page; errors: string[] }> {
    const opened = await browser.newPage();
    await opened.page.goto(`${server.url}/`);
    await opened.page.waitForSelector("body[data-ready]");
    return opened;
  }
  const listedOn = (on: Page) => on.$$eval("#endpoint option", (options) => options.map((o) => o.textContent));

  it("lists the saved queries as the key is typed, while the key field keeps the focus", async () => {
    const { page: typing, errors: typingErrors } = await freshPage();
    await typing.type("#key", TEST_API_KEY);
    await typing.waitForFunction(() => document.querySelectorAll("#endpoint option").length > 0, { timeout: 5_000 });
    expect(await typing.evaluate(() => document.activeElement?.id)).toBe("key");
    expect(await listedOn(typing)).toEqual(await listedOn(page));
    await typing.select("#endpoint", "usage.api-counts");
    expect(await typing.$$eval("#parameters .field label", (labels) => labels.map((l) => l.textContent))).toEqual([
      "project",
      "interval",
    ]);
    expect(typing.url()).not.toContain(TEST_API_KEY);
    expect(await typing.evaluate(() => localStorage.length)).toBe(0);
    await typing.close();
    await page.bringToFront();
    expect(typingErrors).toEqual([]);
  });

  it("never lets a slow answer for an older key replace the listing of the newer one", async () => {
    const { page: typing } = await freshPage();
    await typing.setRequestInterception(true);
    typing.on("request", (request) => {
      const slow = request.headers()["x-api-key"] === "an-older-key";
      setTimeout(() => void request.continue().catch(() => {}), slow ? 1_500 : 0);
    });
    await typing.type("#key", "an-older-key");
    await typing.waitForFunction(() => document.querySelector("#status")?.getAttribute("data-state") === "busy");
    await typing.$eval("#key", (input) => ((input as HTMLInputElement).value = ""));
    await typing.type("#key", TEST_API_KEY);
    await typing.waitForFunction(() => document.querySelectorAll("#endpoint option").length > 0, { timeout: 5_000 });
    await new Promise((resolve) => setTimeout(resolve, 2_000)); // past the older answer's delay
    const listed = await listedOn(page);
    expect(await listedOn(typing)).toEqual(listed);
    expect(await typing.$eval("#status", (p) => p.textContent)).toBe(`${listed.length} saved queries for this key.`);
    await typing.close();
    await page.bringToFront();
  });

  it("builds the form from the listing: required marks, allowed values as choices, defaults shown", async () => {
    await (await byName("combobox", "Endpoint"))!.select("functions.invocation-stats");
    const interval = await byName("combobox", "interval");
    const choices = await interval!.$$eval("option", (options) => options.map((o) => o.textContent));
    expect(choices).toEqual(["(default: 1day)", "5min", "15min", "1hr", "1day", "7day"]);
    const project = await byName("textbox", "project");
    expect(await project!.evaluate((input) => (input as HTMLInputElement).required)).toBe(true);
    await (await byName("combobox", "Endpoint"))!.select("usage.api-counts");
    const required = await page.$$eval("#parameters .field", (rows) =>
      rows.map((row) => [row.querySelector("label")?.textContent, row.querySelector(".required") !== null]),
    );
    expect(required).toEqual([
      ["project", true],
      ["interval", true],
    ]);
  });

  for (const [endpoint, parameters] of calls) {
    it.each(transports)(`runs ${endpoint} over %s and shows the same rows as a GET`, async (transport) => {
      const query = new URLSearchParams(parameters).toString();
      const response = await fetch(`${server.url}/api/endpoints/${endpoint}?${query}`, {
        headers: { "x-api-key": TEST_API_KEY },
      });
      const expected = ((await response.json()) as { result: Record<string, unknown>[] }).result;
      expect(expected.length).toBeGreaterThan(0);
      await run(endpoint, parameters, transport);
      expect(await page.$eval("#status", (p) => p.getAttribute("data-state"))).toBe("ok");
      expect(await tableCells()).toEqual(asCells(expected));
      expect(await fact("rows")).toBe(String(expected.length));
      expect(Number(await fact("bytes on the wire"))).toBeGreaterThan(0);
      expect(await fact("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
      if (endpoint !== "logs.all") expect(await fact("x-cache")).toMatch(/^(HIT|MISS) \(age \d+ s\)$/);
      if (transport === "get") expect(await fact("Server-Timing")).toMatch(/dur=/);
      expect(Number(await fact("rows read"))).toBeGreaterThan(0);
      expect(Number(await fact("bytes read"))).toBeGreaterThan(0);
    });
  }

  it("draws a chart of a result over time, an image named after the saved query", async () => {
    await run("functions.invocation-stats", { project: "shop", interval: "1day" }, "get");
    const chart = await page.waitForSelector('[role="img"][aria-label*="functions.invocation-stats"]');
    const drawn = await chart!.$$eval("canvas", (canvases) =>
      canvases.map((canvas) => {
        const { data } = canvas.getContext("2d")!.getImageData(0, 0, canvas.width, canvas.height);
        let painted = 0;
        for (let i = 3; i < data.length; i += 4) if (data[i]! > 0) painted += 1;
        return { width: canvas.width, painted };
      }),
    );
    expect(drawn.length).toBe(1);
    expect(drawn[0]!.width).toBeGreaterThan(300);
    expect(drawn[0]!.painted).toBeGreaterThan(1_000);
    expect(await chart!.evaluate((e) => e.getAttribute("aria-label"))).toContain("count");
    expect(await chart!.evaluate((e) => e.getAttribute("aria-label"))).toContain(
      "p99_execution_time (ms, left axis), count, error_count (right axis) over time",
    );
    // uPlot places one box per axis: the x axis below, milliseconds left of the plot, counts right of it.
    const boxes = await chart!.evaluate((figure) => {
      const box = (e: Element) => {
        const { left, right, top, bottom } = e.getBoundingClientRect();
        return { left, right, top, bottom };
      };
      return { plot: box(figure.querySelector(".u-over")!), axes: [...figure.querySelectorAll(".u-axis")].map(box) };
    });
    expect(boxes.axes).toHaveLength(3);
    expect(boxes.axes.filter((axis) => axis.top >= boxes.plot.bottom)).toHaveLength(1);
    expect(boxes.axes.filter((axis) => axis.right <= boxes.plot.left)).toHaveLength(1);
    expect(boxes.axes.filter((axis) => axis.left >= boxes.plot.right)).toHaveLength(1);
    if (process.env.SCREENSHOTS === "1") {
      await page.screenshot({ path: join(import.meta.dirname, "../../../docs/explorer.png"), fullPage: false });
    }
  });

  const banner = () =>
    page.$eval("#deprecation", (p) => ({ hidden: (p as HTMLElement).hidden, text: p.textContent ?? "" }));
  const truncationNote = () =>
    page.$eval("#truncation", (p) => ({ hidden: (p as HTMLElement).hidden, text: p.textContent ?? "" }));

  it("shows a banner over a deprecated saved query, with its sunset and successor, and none over its successor", async () => {
    await (await byName("combobox", "Endpoint"))!.select("usage.api-counts");
    // proto/usage/v1/usage.proto: deprecated 2026-12-01, sunset 2027-12-31, successor usage.api-counts.v2.
    expect(await banner()).toEqual({
      hidden: false,
      text: "usage.api-counts is deprecated since 2026-12-01; it will be refused from 2027-12-31. Use usage.api-counts.v2 instead.",
    });
    expect(await page.$eval("#deprecation", (p) => p.children.length)).toBe(0);
    await (await byName("combobox", "Endpoint"))!.select("usage.api-counts.v2");
    expect(await banner()).toEqual({ hidden: true, text: "" });
    await (await byName("combobox", "Endpoint"))!.select("logs.all");
    expect(await banner()).toEqual({ hidden: true, text: "" });
  });

  it.each(["get", "connect", "grpc-web"])(
    "says under the rows of a logs.all page with older rows over %s that rows were left out",
    async (transport) => {
      await run("logs.all", { project: "paged" }, transport);
      expect((await tableCells()).body).toHaveLength(100);
      expect(await truncationNote()).toEqual({ hidden: false, text: `first 100 of at least ${PAGED_ROWS} rows` });
      await run("logs.all", { project: "rpc" }, transport);
      expect((await tableCells()).body).toHaveLength(3);
      expect(await truncationNote()).toEqual({ hidden: true, text: "" });
    },
  );

  it("drops the truncation line once Load older has shown every row", async () => {
    await run("logs.all", { project: "paged" }, "get");
    await (await byName("button", "Load older"))!.click();
    await page.waitForFunction((n) => document.querySelectorAll("#results tbody tr").length === n, {}, PAGED_ROWS);
    expect(await truncationNote()).toEqual({ hidden: true, text: "" });
  });

  it("shows hostile log text and metadata as text, and never runs it", async () => {
    await run("logs.all", { project: "xss" }, "connect");
    const cells = await tableCells();
    expect(cells.body[0]).toContain(HOSTILE_MESSAGE);
    const details = await page.$("#results details");
    await details!.$eval("summary", (summary) => (summary as HTMLElement).click());
    const opened = await page.$eval("#results details pre", (pre) => pre.textContent ?? "");
    expect(JSON.parse(opened)[0].note).toBe(HOSTILE_NOTE);
    expect(await page.$$eval("#results img, #results script", (found) => found.length)).toBe(0);
    expect(await page.title()).toBe("Saved-query explorer");
  });

  it("shows a bad parameter's violation next to its input, and the error's code", async () => {
    await run("usage.api-counts", { project: "(", interval: "daily" }, "grpc-web");
    expect(await page.$eval("#status", (p) => p.getAttribute("data-state"))).toBe("error");
    expect(await statusText()).toContain("invalid_argument");
    const project = await byName("textbox", "project");
    expect(await project!.evaluate((input) => input.getAttribute("aria-invalid"))).toBe("true");
    const described = await project!.evaluate(
      (input) => document.getElementById(input.getAttribute("aria-describedby")!)!.textContent,
    );
    expect(described).toMatch(/^project /);
    expect(await page.$$eval("#results table", (tables) => tables.length)).toBe(0);
  });

  it("keeps the key out of the address and localStorage, and reloads a shared view from its address", async () => {
    await run("logs.all", { project: "rpc", project_tier: "PRO" }, "grpc-web");
    const address = page.url();
    expect(address).not.toContain(TEST_API_KEY);
    expect(new URL(address).hash).toBe("#/logs.all/grpc-web?project=rpc&project_tier=PRO");
    expect(await page.evaluate(() => localStorage.length)).toBe(0);
    await page.reload();
    await page.waitForFunction(() => document.querySelector("#status")?.getAttribute("data-call") === "1");
    runs = 1;
    expect(await (await byName("textbox", "project"))!.evaluate((input) => (input as HTMLInputElement).value)).toBe(
      "rpc",
    );
    expect(await (await byName("combobox", "Transport"))!.evaluate((s) => (s as HTMLSelectElement).value)).toBe(
      "grpc-web",
    );
    expect((await tableCells()).body.map((row) => row[0])).toEqual(["e1", "e2", "e3"]);
  });

  it("copies the exact call as curl, which gives the rows, and as buf curl", async () => {
    await run("usage.api-counts", { project: "//rpc\\.", interval: "hourly" }, "get");
    await (await byName("button", "Copy as curl"))!.click();
    const curl = await page.evaluate(() => navigator.clipboard.readText());
    expect(curl).toBe(
      `curl -s '${server.url}/api/endpoints/usage.api-counts?project=%2F%2Frpc%5C.&interval=hourly' -H 'X-API-KEY: ${TEST_API_KEY}'`,
    );
    // Run beside this process's event loop, which serves it: a synchronous child would wait for itself.
    const { stdout: output } = await promisify(execFile)("sh", ["-c", curl], { encoding: "utf8" });
    expect((JSON.parse(output) as { result: unknown[] }).result).toHaveLength(1);
    await (await byName("combobox", "Transport"))!.select("grpc-web");
    await (await byName("button", "Copy as buf curl"))!.click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(
      `buf curl --protocol grpcweb -H 'X-API-KEY: ${TEST_API_KEY}' -d '{"project":"//rpc\\\\.","interval":"hourly"}' '${server.url}/usage.v1.UsageService/GetApiCounts'`,
    );
  });

  it("gives a scoped token its saved queries only, its fixed parameters filled and locked", async () => {
    const token = await issueToken(
      { sub: "tenant-a", endpoints: ["logs.all"], fixed: { project: "rpc" } },
      { secret: SECRET, ttlSeconds: 3600, now: NOW },
    );
    await useKey(token);
    expect(await page.$$eval("#endpoint option", (options) => options.map((o) => o.textContent))).toEqual(["logs.all"]);
    const project = await byName("textbox", "project");
    expect(
      await project!.evaluate((input) => [(input as HTMLInputElement).value, (input as HTMLInputElement).readOnly]),
    ).toEqual(["rpc", true]);
    await run("logs.all", {}, "connect-binary");
    expect((await tableCells()).body.map((row) => row[0])).toEqual(["e1", "e2", "e3"]);
  });

  it("runs with no script error", () => {
    // Refused calls are logged by Chromium as failed loads; anything else is an error of the page.
    expect(errors.filter((e) => !e.includes("Failed to load resource"))).toEqual([]);
  });
});
