// The explorer's Live switch and "Load older" in Chromium, over the real
// server: rows posted to the import route while Live is on reach the table
// over SSE read by fetch (GET) and over connect-web's streams (Connect,
// gRPC-Web), newest first; hostile log text arriving live stays text; a
// logs.all of 150 rows pages back to 150 distinct ids.
import type { ElementHandle, Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Warehouse } from "../../../src/warehouse/index.js";
import { builtExplorerPage, launchBrowser, skipWithoutChromium, type TestBrowser } from "../../support/browser.js";
import { openTestWarehouse } from "../../support/embedded-warehouse.js";
import { insertScenario, NOW } from "../../support/scenario.js";
import { startTestServer, TEST_API_KEY, type TestServer } from "../../support/test-server.js";

const skip = skipWithoutChromium("explorer-live.test.ts");
const MINUTE = 60_000;
const HOSTILE_MESSAGE = `<img src=x onerror="document.title='pwned'"> GET | 200 | /live`;

const uuids = new Map<string, string>();
/** A UUID of its own for each test name of a row (the import route takes UUID ids only). */
function uuid(name: string): string {
  if (!uuids.has(name)) uuids.set(name, `00000000-0000-4000-8000-${String(uuids.size + 1).padStart(12, "0")}`);
  return uuids.get(name)!;
}

/** An edge_logs line of `project` with the id named `id`, `msAgo` before the scenario's time. */
function edgeLine(project: string, id: string, msAgo: number, message = "GET | 200 | /rest/v1/live"): string {
  return JSON.stringify({
    id: uuid(id),
    timestamp: new Date(NOW - msAgo).toISOString(),
    event_message: message,
    project,
    metadata: [
      {
        request: [{ method: "GET", path: "/rest/v1/live", url: `https://${project}.supabase.co/rest/v1/live` }],
        response: [{ status_code: 200 }],
      },
    ],
  });
}

describe.skipIf(skip)("the explorer's Live switch and Load older in Chromium", () => {
  let warehouse: Warehouse;
  let server: TestServer;
  let browser: TestBrowser;
  let page: Page;
  let errors: string[];

  async function post(lines: string[]): Promise<void> {
    const response = await fetch(`${server.url}/api/import/edge_logs`, {
      method: "POST",
      headers: { "x-api-key": TEST_API_KEY, "content-type": "application/x-ndjson" },
      body: `${lines.join("\n")}\n`,
    });
    expect(await response.json()).toEqual({ inserted: lines.length });
  }

  beforeAll(async () => {
    warehouse = await openTestWarehouse();
    await insertScenario(warehouse);
    server = await startTestServer(warehouse, NOW, {
      explorer: { directory: builtExplorerPage },
      watch: { tailPollMs: 100 },
    });
    browser = await launchBrowser();
    ({ page, errors } = await browser.newPage());
    await page.goto(`${server.url}/`);
    await page.waitForSelector("body[data-ready]");
    await typeInto(await byName("textbox", "API key"), TEST_API_KEY);
    await page.waitForFunction(() => document.querySelectorAll("#endpoint option").length > 0);
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

  /** Chooses `endpoint`, fills `parameters` and `transport`; Live is off after these changes. */
  async function choose(endpoint: string, parameters: Record<string, string>, transport: string): Promise<void> {
    await (await byName("combobox", "Endpoint"))!.select(endpoint);
    for (const [name, value] of Object.entries(parameters)) {
      const input = await page.$(`::-p-aria([name="${name}"])`);
      if ((await input!.evaluate((e) => e.tagName)) === "SELECT") await input!.select(value);
      else await typeInto(input, value);
    }
    await (await byName("combobox", "Transport"))!.select(transport);
    expect(await page.$eval("#live", (box) => (box as HTMLInputElement).checked)).toBe(false);
  }

  const firstColumn = () =>
    page.$$eval("#results tbody tr", (rows) => rows.map((row) => row.querySelector("td")?.textContent ?? ""));
  const waitForFirstColumn = (ids: string[]) =>
    page.waitForFunction(
      (expected) =>
        JSON.stringify(
          [...document.querySelectorAll("#results tbody tr")].map((r) => r.querySelector("td")?.textContent),
        ) === expected,
      { timeout: 10_000 },
      JSON.stringify(ids.map(uuid)),
    );

  for (const transport of ["get", "connect", "grpc-web"] as const) {
    it(`tails logs.all over ${transport}: rows posted while Live is on come on top, newest first`, async () => {
      const project = `live-${transport}`;
      await post([edgeLine(project, `${project}-1`, 10 * MINUTE), edgeLine(project, `${project}-2`, 9 * MINUTE)]);
      await choose("logs.all", { project }, transport);
      await (await byName("checkbox", "Live"))!.click();
      await waitForFirstColumn([`${project}-2`, `${project}-1`]);
      expect(await page.$eval("#status", (p) => p.textContent)).toMatch(/^Live: logs\.all/);
      await post([edgeLine(project, `${project}-3`, 2 * MINUTE), edgeLine(project, `${project}-4`, MINUTE)]);
      await waitForFirstColumn([`${project}-4`, `${project}-3`, `${project}-2`, `${project}-1`]);
      expect(await page.$eval("#status", (p) => p.textContent)).toMatch(/^Live: logs\.all, 2 new, 4 rows/);
      await (await byName("checkbox", "Live"))!.click();
      expect(await page.$eval("#status", (p) => p.textContent)).toBe("Live is off.");
    });
  }

  it("keeps usage.api-counts current over SSE: an import's rows are counted in the next result", async () => {
    const project = "livecounts";
    await post([edgeLine(project, "c-1", 10 * MINUTE)]);
    await choose("usage.api-counts", { project, interval: "hourly" }, "get");
    await (await byName("checkbox", "Live"))!.click();
    // The REST requests counted over all the result's hours.
    const restRequests = () =>
      page.evaluate(() => {
        const heads = [...document.querySelectorAll("#results thead th")].map((th) => th.textContent);
        const at = heads.indexOf("total_rest_requests");
        return [...document.querySelectorAll("#results tbody tr")].reduce(
          (sum, row) => sum + Number(row.querySelectorAll("td")[at]?.textContent),
          0,
        );
      });
    await page.waitForFunction(() =>
      document.querySelector("#status")?.textContent?.startsWith("Live: usage.api-counts"),
    );
    expect(await restRequests()).toBe(1);
    await post([edgeLine(project, "c-2", 5 * MINUTE), edgeLine(project, "c-3", 4 * MINUTE)]);
    await page.waitForFunction(
      () => {
        const heads = [...document.querySelectorAll("#results thead th")].map((th) => th.textContent);
        const at = heads.indexOf("total_rest_requests");
        const cells = [...document.querySelectorAll("#results tbody tr")].map((row) => row.querySelectorAll("td")[at]);
        return cells.reduce((sum, td) => sum + Number(td?.textContent), 0) === 3;
      },
      { timeout: 10_000 },
    );
    expect(await restRequests()).toBe(3);
    // Any change to the call ends the stream.
    await (await byName("combobox", "Transport"))!.select("connect");
    expect(await page.$eval("#live", (box) => (box as HTMLInputElement).checked)).toBe(false);
    expect(await page.$eval("#status", (p) => p.textContent)).toBe("Live stopped: the call changed.");
  });

  it("shows hostile log text arriving live as text, and never runs it", async () => {
    const project = "livexss";
    await post([edgeLine(project, "x-1", 10 * MINUTE)]);
    await choose("logs.all", { project }, "get");
    await (await byName("checkbox", "Live"))!.click();
    await waitForFirstColumn(["x-1"]);
    await post([edgeLine(project, "x-2", MINUTE, HOSTILE_MESSAGE)]);
    await waitForFirstColumn(["x-2", "x-1"]);
    const cells = await page.$$eval("#results tbody tr:first-child td", (tds) => tds.map((td) => td.textContent));
    expect(cells).toContain(HOSTILE_MESSAGE);
    expect(await page.$$eval("#results img, #results script", (found) => found.length)).toBe(0);
    expect(await page.title()).toBe("Saved-query explorer");
    await (await byName("checkbox", "Live"))!.click();
  });

  for (const transport of ["get", "connect"] as const) {
    it(`loads older pages of logs.all over ${transport} until 150 distinct ids are shown`, async () => {
      const project = `paged-${transport}`;
      await post(Array.from({ length: 150 }, (_, n) => edgeLine(project, `${project}-${n}`, (n + 1) * 1000)));
      await choose("logs.all", { project }, transport);
      await (await byName("button", "Run"))!.click();
      await page.waitForFunction(() => document.querySelectorAll("#results tbody tr").length === 100);
      const older = await byName("button", "Load older");
      await older!.click();
      await page.waitForFunction(() => document.querySelectorAll("#results tbody tr").length === 150);
      const ids = await firstColumn();
      expect(new Set(ids).size).toBe(150);
      expect(ids).toEqual(Array.from({ length: 150 }, (_, n) => uuid(`${project}-${n}`)));
      expect(await page.$eval("#load-older", (button) => (button as HTMLButtonElement).hidden)).toBe(true);
    });
  }

  it("runs with no script error", () => {
    expect(errors.filter((e) => !e.includes("Failed to load resource"))).toEqual([]);
  });
});
