// GET answers in the format and content coding the caller asks for, read off
// the wire with node:http (fetch would decompress): CSV read with the tests'
// own RFC 4180 reader, NDJSON line by line, gzip and Brotli decompressed, on
// cache misses and hits; Server-Timing and the CORS exposed headers.
import { request as httpRequest } from "node:http";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { beforeAll, describe, expect, it } from "vitest";
import { readCsv } from "../../support/csv-reader.js";
import { expectedApiCounts, expectedLogIds } from "../../support/scenario.js";
import { TEST_API_KEY, useScenarioServer, type TestServer } from "../../support/test-server.js";

const scenario = useScenarioServer();
let server: TestServer;
beforeAll(() => {
  server = scenario.server();
});

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** One GET (or HEAD) over node:http: the bytes as sent, nothing decoded. */
function raw(path: string, headers: Record<string, string> = {}, method = "GET"): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      `${server.url}${path}`,
      { method, headers: { "x-api-key": TEST_API_KEY, ...headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end();
  });
}

const apiCounts = "/api/endpoints/usage.api-counts?project=%2F%2Frpc%5C.&interval=hourly";
const iso = (ms: number) => new Date(ms).toISOString().replace(".000Z", "Z");
// Worked out from the scenario (see scenario.ts): one hour bucket, 1 rest and 1 auth request.
const apiCountsCsv =
  "timestamp,total_rest_requests,total_storage_requests,total_auth_requests,total_realtime_requests\r\n" +
  expectedApiCounts
    .map(([t, rest, storage, auth, realtime]) => `${iso(t)},${rest},${storage},${auth},${realtime}\r\n`)
    .join("");

describe("body formats", () => {
  it("answers CSV for format=csv: a header line, then the rows", async () => {
    const response = await raw(`${apiCounts}&format=csv`);
    expect(response.status).toBe(200);
    expect(response.headers["content-type"]).toBe("text/csv; charset=utf-8; header=present");
    expect(response.body.toString()).toBe(apiCountsCsv);
    expect(response.headers["content-length"]).toBe(String(response.body.length));
  });

  it("answers the same CSV for Accept: text/csv, and format= takes precedence over Accept", async () => {
    const byAccept = await raw(`${apiCounts}&`, { accept: "text/csv" });
    const byParameter = await raw(`${apiCounts}&format=csv`, { accept: "application/json" });
    expect(byAccept.body.toString()).toBe(apiCountsCsv);
    expect(byParameter.body.toString()).toBe(apiCountsCsv);
  });

  it("answers NDJSON, one row a line, the same rows as the JSON body", async () => {
    const json = JSON.parse((await raw(apiCounts)).body.toString()) as { result: unknown[] };
    const response = await raw(apiCounts, { accept: "application/x-ndjson" });
    expect(response.headers["content-type"]).toBe("application/x-ndjson");
    const lines = response.body.toString().split("\n");
    expect(lines.pop()).toBe("");
    expect(lines.map((line) => JSON.parse(line))).toEqual(json.result);
    expect(lines.map((line) => JSON.parse(line))).toEqual(
      expectedApiCounts.map(([t, rest, storage, auth, realtime]) => ({
        timestamp: iso(t),
        total_rest_requests: rest,
        total_storage_requests: storage,
        total_auth_requests: auth,
        total_realtime_requests: realtime,
      })),
    );
  });

  it("writes log records as CSV with metadata as its JSON text, read back by an RFC 4180 reader", async () => {
    const response = await raw("/api/endpoints/logs.all?project=rpc&project_tier=PRO&format=csv");
    const [header, ...records] = readCsv(response.body.toString());
    expect(header).toEqual(["id", "timestamp", "event_message", "metadata"]);
    expect(records.map((r) => r[0])).toEqual(expectedLogIds);
    expect(records[0]![2]).toBe("GET | 200 | /rest/v1/a");
    expect(JSON.parse(records[0]![3]!)).toEqual([
      {
        request: [{ method: "GET", path: "/rest/v1/a", url: "https://rpc.supabase.co/rest/v1/a" }],
        response: [{ status_code: 200 }],
      },
    ]);
  });

  it("shares one cache entry between formats: format changes the body, not the rows", async () => {
    const path = "/api/endpoints/usage.api-counts?project=rpc&interval=daily";
    expect((await raw(path)).headers["x-cache"]).toBe("MISS");
    expect((await raw(`${path}&format=ndjson`)).headers["x-cache"]).toBe("HIT");
    expect((await raw(`${path}&format=csv`)).headers["x-cache"]).toBe("HIT");
  });

  it.each([
    ["an unknown format", "format=parquet", "format must be one of json, csv, ndjson"],
    ["a repeated format", "format=csv&format=csv", "format is given more than once"],
  ])("refuses %s with a JSON error naming format", async (_label, query, description) => {
    const response = await raw(`/api/endpoints/logs.all?project=rpc&${query}`, {
      accept: "text/csv",
      "accept-encoding": "gzip",
    });
    expect(response.status).toBe(400);
    expect(response.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(JSON.parse(response.body.toString()).error.details).toEqual([{ field: "format", description }]);
  });
});

describe("compression", () => {
  it.each([
    ["gzip", "gzip, deflate", gunzipSync, "1hr"],
    ["br", "gzip, deflate, br", brotliDecompressSync, "1day"],
  ])(
    "answers %s that decompresses to the plain body, on a miss and on a hit",
    async (coding, acceptEncoding, decompress, interval) => {
      const path = `/api/endpoints/functions.invocation-stats?project=rpc&interval=${interval}`;
      const miss = await raw(path, { "accept-encoding": acceptEncoding });
      const hit = await raw(path, { "accept-encoding": acceptEncoding });
      const plain = await raw(path);
      expect(JSON.parse(plain.body.toString()).result.length).toBeGreaterThan(0);
      for (const response of [miss, hit]) {
        expect(response.headers["content-encoding"]).toBe(coding);
        expect(response.headers.vary).toBe("Accept, Accept-Encoding, X-API-KEY, Authorization");
        expect(response.headers["content-length"]).toBe(String(response.body.length));
        expect(decompress(response.body).equals(plain.body)).toBe(true);
      }
      expect([miss.headers["x-cache"], hit.headers["x-cache"], plain.headers["x-cache"]]).toEqual([
        "MISS",
        "HIT",
        "HIT",
      ]);
      expect(hit.body.equals(miss.body)).toBe(true);
    },
  );

  it("compresses a cached body once, counts it in the cache and serves later hits without compressing", async () => {
    const path = "/api/endpoints/usage.api-counts?project=rpc&interval=minutely";
    await raw(path);
    const before = server.app.cache.size.bytes;
    const first = await raw(path, { "accept-encoding": "gzip" });
    const grown = server.app.cache.size.bytes;
    const second = await raw(path, { "accept-encoding": "gzip" });
    // The kept body, its name ("json+gzip", two bytes a character) and the bookkeeping of a kept body with its
    // entity tag (320 bytes) and of the first body kept beside a result (256 more).
    expect(grown - before).toBe(first.body.length + 2 * "json+gzip".length + 320 + 256);
    expect(server.app.cache.size.bytes).toBe(grown);
    expect(first.headers["server-timing"]).toMatch(
      /^cache;desc="hit";dur=[\d.]+, warehouse;dur=[\d.]+, serialize;dur=[\d.]+$/,
    );
    expect(second.headers["server-timing"]).toMatch(/^cache;desc="hit";dur=[\d.]+, warehouse;dur=[\d.]+$/);
  });

  it("compresses CSV too, and a gzip CSV body is the CSV body gzipped", async () => {
    const response = await raw(`${apiCounts}&format=csv`, { "accept-encoding": "gzip" });
    expect(response.headers["content-encoding"]).toBe("gzip");
    expect(gunzipSync(response.body).toString()).toBe(apiCountsCsv);
  });

  it("compresses a result that is never cached (logs.all) on every call", async () => {
    const plain = await raw("/api/endpoints/logs.all?project=rpc");
    const gzip = await raw("/api/endpoints/logs.all?project=rpc", { "accept-encoding": "gzip" });
    expect(gzip.headers["content-encoding"]).toBe("gzip");
    expect(gunzipSync(gzip.body).equals(plain.body)).toBe(true);
  });

  it("answers plain bytes to a caller that accepts no coding it writes", async () => {
    const response = await raw(apiCounts, { "accept-encoding": "deflate" });
    expect(response.headers["content-encoding"]).toBeUndefined();
    expect(response.headers.vary).toBe("Accept, Accept-Encoding, X-API-KEY, Authorization");
    expect(JSON.parse(response.body.toString()).result).toHaveLength(expectedApiCounts.length);
  });

  it("answers HEAD with the compressed length and no body", async () => {
    const get = await raw(apiCounts, { "accept-encoding": "gzip" });
    const head = await raw(apiCounts, { "accept-encoding": "gzip" }, "HEAD");
    expect(head.headers["content-length"]).toBe(String(get.body.length));
    expect(head.body.length).toBe(0);
  });
});

describe("timing and statistics headers", () => {
  it("times the cache lookup, the warehouse and the serialisation of a miss", async () => {
    const response = await raw("/api/endpoints/usage.api-counts?project=timing&interval=daily");
    expect(response.headers["x-cache"]).toBe("MISS");
    expect(response.headers["server-timing"]).toMatch(
      /^cache;desc="miss";dur=[\d.]+, warehouse;dur=[\d.]+, serialize;dur=[\d.]+$/,
    );
  });

  it("times the warehouse and the serialisation of an endpoint without a cache", async () => {
    const response = await raw("/api/endpoints/logs.all?project=timing");
    expect(response.headers["server-timing"]).toMatch(/^warehouse;dur=[\d.]+, serialize;dur=[\d.]+$/);
  });

  it("sends the rows and bytes read on the embedded engine too", async () => {
    const response = await raw("/api/endpoints/logs.all?project=timing");
    expect(response.headers["x-rows-read"]).toMatch(/^\d+$/);
    expect(response.headers["x-bytes-read"]).toMatch(/^\d+$/);
  });

  it("lets browser pages read the cache, rate-limit and timing headers", async () => {
    const response = await raw(apiCounts);
    const exposed = String(response.headers["access-control-expose-headers"]).split(", ");
    expect(exposed).toEqual(
      expect.arrayContaining([
        "X-Cache",
        "Age",
        "Retry-After",
        "RateLimit",
        "Server-Timing",
        "X-Rows-Read",
        "X-Bytes-Read",
      ]),
    );
    expect(response.headers["timing-allow-origin"]).toBe("*");
  });
});

describe("documentation of formats and headers", () => {
  it("lists the body formats of every endpoint", async () => {
    const listing = JSON.parse((await raw("/api/endpoints")).body.toString()) as { result: { formats: string[] }[] };
    // The four saved queries and usage.api-counts' second version.
    expect(listing.result.length).toBe(5);
    for (const endpoint of listing.result) expect(endpoint.formats).toEqual(["json", "csv", "ndjson"]);
  });

  it("documents the format parameter, the CSV and NDJSON bodies and the answer headers in OpenAPI", async () => {
    const document = JSON.parse((await raw("/openapi.json")).body.toString());
    const path = document.paths["/api/endpoints/usage.api-counts"];
    expect(path.parameters).toEqual([
      expect.objectContaining({
        name: "format",
        in: "query",
        schema: expect.objectContaining({ enum: ["json", "csv", "ndjson"] }),
      }),
      // The dry run's switch (docs/usage-accounting.md).
      expect.objectContaining({ name: "dry_run", in: "query" }),
    ]);
    const ok = path.get.responses["200"];
    expect(Object.keys(ok.content)).toEqual(["application/json", "text/csv", "application/x-ndjson"]);
    expect(Object.keys(ok.headers)).toEqual(
      expect.arrayContaining([
        "Content-Encoding",
        "Vary",
        "Server-Timing",
        "X-Rows-Read",
        "X-Bytes-Read",
        "X-Cache",
        "Age",
      ]),
    );
  });
});
