// HTTP caching of GET answers through the real server: validators, 304s to
// fetch and curl revalidating with If-None-Match, the caller's Cache-Control,
// and no-store on errors.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it, onTestFinished, vi } from "vitest";
import { TEST_API_KEY, useScenarioServer, type TestServer } from "../../support/test-server.js";

const run = promisify(execFile);
const scenario = useScenarioServer({ staleIfErrorMs: 120_000 });
let server: TestServer;
beforeAll(() => {
  server = scenario.server();
});

const keyed = { "x-api-key": TEST_API_KEY };
const get = (path: string, headers: Record<string, string> = {}) =>
  fetch(`${server.url}${path}`, { headers: { ...keyed, ...headers } });

/** The status, headers (names lowercased) and body curl printed with `-i`. */
async function curlHead(args: string[]): Promise<{ status: number; headers: Map<string, string>; body: string }> {
  const { stdout } = await run("curl", ["-s", "-i", ...args], { encoding: "utf8" });
  const split = stdout.indexOf("\r\n\r\n");
  const body = stdout.slice(split + 4);
  const lines = stdout.slice(0, split).split("\r\n");
  const headers = new Map<string, string>();
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(":");
    headers.set(line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim());
  }
  return { status: Number(lines[0]!.split(" ")[1]), headers, body: body! };
}

describe("validators on GET answers", () => {
  it("names a weak tag per form, Last-Modified, a private lifetime and the cache's status", async () => {
    const path = "/api/endpoints/usage.api-counts?project=rpc&interval=daily";
    const miss = await get(path);
    server.clock.advance(5_000);
    const hit = await get(path);
    const csv = await get(`${path}&format=csv`);
    const gzip = await get(path, { "accept-encoding": "gzip" });
    const etag = miss.headers.get("etag")!;
    expect(etag).toMatch(/^W\/"[A-Za-z0-9_-]{22}-json"$/);
    expect(hit.headers.get("etag")).toBe(etag);
    expect(gzip.headers.get("etag")).toBe(etag);
    expect(csv.headers.get("etag")).toBe(etag.replace("-json", "-csv"));
    expect(miss.headers.get("last-modified")).toBe(new Date(server.clock() - 5_000).toUTCString());
    expect(hit.headers.get("cache-control")).toBe("private, max-age=900, stale-if-error=120");
    expect(miss.headers.get("cache-status")).toBe("saved-query-endpoints; fwd=miss; stored; ttl=900");
    expect(hit.headers.get("cache-status")).toBe("saved-query-endpoints; hit; ttl=895");
    expect([hit.headers.get("x-cache"), hit.headers.get("age")]).toEqual(["HIT", "5"]);
    expect(hit.headers.get("vary")).toBe("Accept, Accept-Encoding, X-API-KEY, Authorization");
  });

  it("says an uncached saved query must be revalidated", async () => {
    const response = await get("/api/endpoints/logs.all?project=rpc");
    expect(response.headers.get("cache-control")).toBe("private, no-cache");
    expect(response.headers.get("cache-status")).toBe("saved-query-endpoints; fwd=uri-miss");
    expect(response.headers.get("etag")).toMatch(/-json"$/);
    expect(response.headers.get("last-modified")).toBe(new Date(server.clock()).toUTCString());
  });

  it("answers errors with no-store", async () => {
    const response = await get("/api/endpoints/usage.api-counts?project=rpc&interval=weekly");
    expect(response.status).toBe(400);
    expect(response.headers.get("cache-control")).toBe("no-store");
  });
});

describe("conditional GET", () => {
  const path = "/api/endpoints/functions.invocation-stats?project=rpc&interval=hourly";

  // fetch adds `Cache-Control: no-cache` to a conditional request (Fetch, HTTP-network-or-cache fetch): a forced run.
  it("answers fetch's If-None-Match with 304, the validators and no body", async () => {
    const first = await get(path);
    const etag = first.headers.get("etag")!;
    const again = await get(path, { "if-none-match": `"other", ${etag}` });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe("");
    expect(again.headers.get("etag")).toBe(etag);
    expect(again.headers.get("x-cache")).toBe("MISS");
    expect(again.headers.get("cache-status")).toBe("saved-query-endpoints; fwd=request; stored; ttl=900");
    expect(again.headers.get("cache-control")).toMatch(/^private, max-age=900/);
    const strong = await get(path, { "if-none-match": etag.slice(2) });
    expect(strong.status).toBe(304);
    expect((await get(path, { "if-none-match": "*" })).status).toBe(304);
    expect((await get(path, { "if-none-match": '"nothing"' })).status).toBe(200);
  });

  it("answers If-Modified-Since no earlier than the result with 304", async () => {
    const first = await get(path);
    const lastModified = first.headers.get("last-modified")!;
    expect((await get(path, { "if-modified-since": lastModified })).status).toBe(304);
    const before = new Date(Date.parse(lastModified) - 1_000).toUTCString();
    expect((await get(path, { "if-modified-since": before })).status).toBe(200);
  });

  it.each([
    ["an ISO 8601 timestamp", () => new Date(Date.now() + 3_600_000).toISOString()],
    ["a date later than now", () => new Date(Date.now() + 3_600_000).toUTCString()],
  ])("ignores If-Modified-Since holding %s: 200 with the body", async (_, since) => {
    for (const target of [path, "/api/endpoints/logs.all?project=rpc"]) {
      const response = await get(target, { "if-modified-since": since() });
      expect(response.status).toBe(200);
      expect((await response.json()).result.length).toBeGreaterThan(0);
    }
  });

  it("revalidates with curl, and answers a wrong key 401 whatever it matches", async () => {
    const url = `${server.url}${path}`;
    const first = await curlHead(["-H", `x-api-key: ${TEST_API_KEY}`, url]);
    const etag = first.headers.get("etag")!;
    const again = await curlHead(["-H", `x-api-key: ${TEST_API_KEY}`, "-H", `if-none-match: ${etag}`, url]);
    const wrongKey = await curlHead(["-H", "x-api-key: not-the-key", "-H", `if-none-match: ${etag}`, url]);
    expect([first.status, again.status, again.body]).toEqual([200, 304, ""]);
    expect(again.headers.get("etag")).toBe(etag);
    // No directive of curl's: the 304 comes from the cache, no query run.
    expect(again.headers.get("x-cache")).toBe("HIT");
    expect(again.headers.get("cache-status")).toMatch(/^saved-query-endpoints; hit; ttl=\d+$/);
    expect(wrongKey.status).toBe(401);
    expect(wrongKey.headers.get("cache-control")).toBe("no-store");
  });

  it("answers HEAD with 304 too", async () => {
    const etag = (await get(path)).headers.get("etag")!;
    const head = await fetch(`${server.url}${path}`, { method: "HEAD", headers: { ...keyed, "if-none-match": etag } });
    expect(head.status).toBe(304);
  });
});

describe("the caller's Cache-Control", () => {
  const path = "/api/endpoints/usage.api-counts?project=rpc&interval=hourly";

  it("runs the query again for no-cache and Pragma, and answers 304 when the rows are the same", async () => {
    const first = await get(path);
    const forced = await get(path, { "cache-control": "no-cache" });
    expect(forced.headers.get("x-cache")).toBe("MISS");
    expect(forced.headers.get("cache-status")).toBe("saved-query-endpoints; fwd=request; stored; ttl=900");
    const pragma = await get(path, { pragma: "no-cache" });
    expect(pragma.headers.get("cache-status")).toMatch(/fwd=request/);
    const revalidated = await get(path, { "cache-control": "max-age=0", "if-none-match": first.headers.get("etag")! });
    expect([revalidated.status, revalidated.headers.get("x-cache")]).toEqual([304, "MISS"]);
  });

  // The result cache counts lifetimes in Date.now() time, the service's Age on its clock: both move.
  it("accepts a result at most max-age seconds old", async () => {
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() });
    onTestFinished(() => void vi.useRealTimers());
    await get(path, { "cache-control": "no-cache" });
    server.clock.advance(30_000);
    vi.setSystemTime(Date.now() + 30_000);
    const young = await get(path, { "cache-control": "max-age=60" });
    const old = await get(path, { "cache-control": "max-age=10" });
    expect([young.headers.get("x-cache"), young.headers.get("age")]).toEqual(["HIT", "30"]);
    expect([old.headers.get("x-cache"), old.headers.get("age")]).toEqual(["MISS", "0"]);
  });

  it("answers only-if-cached from the cache, or 504 without reaching the warehouse", async () => {
    await get(path);
    const cached = await get(path, { "cache-control": "only-if-cached" });
    expect(cached.headers.get("x-cache")).toBe("HIT");
    const absent = await get("/api/endpoints/usage.api-counts?project=none&interval=hourly", {
      "cache-control": "only-if-cached",
    });
    expect(absent.status).toBe(504);
    expect(absent.headers.get("cache-control")).toBe("no-store");
    expect(((await absent.json()) as { error: { message: string } }).error.message).toMatch(/not cached/);
  });
});
