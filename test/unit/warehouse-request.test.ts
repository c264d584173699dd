// The settings each warehouse query is sent with: the row cap, the read
// limits in force, and whose query it is (log_comment), in the query text or,
// where the text must stay the same for the server's query cache, beside it.
import { describe, expect, it } from "vitest";
import { querySettings, warehouseRequest, type WarehouseRequestInput } from "../../src/executor/warehouse-request.js";

const input = (extra: Partial<WarehouseRequestInput> = {}): WarehouseRequestInput => ({
  query: { name: "usage.api-counts", sql: "SELECT 1", maxRows: 1000 },
  params: {},
  now: Date.UTC(2026, 10, 20),
  tuning: undefined,
  engineTimeoutMs: 2500,
  abortSignal: undefined,
  owner: { endpoint: "usage.api-counts", caller: "studio", request_id: "req-1" },
  ...extra,
});

describe("querySettings", () => {
  it("carries the row cap and one row past it, the deadline and log_comment as JSON of endpoint, caller and request id", () => {
    const settings = querySettings(input());
    expect(settings).toEqual({
      // maxRows 1000, and the row that says more were left out.
      limit: 1001,
      max_execution_time: 2.5,
      log_comment: '{"endpoint":"usage.api-counts","caller":"studio","request_id":"req-1"}',
      date_time_output_format: "iso",
      output_format_json_quote_64bit_integers: 0,
    });
    expect(JSON.parse(settings.log_comment as string)).toEqual({
      endpoint: "usage.api-counts",
      caller: "studio",
      request_id: "req-1",
    });
  });

  it.each([
    [{}, {}],
    [{ max_rows_to_read: { value: 1000, source: "credential" as const } }, { max_rows_to_read: 1000 }],
    [
      {
        max_rows_to_read: { value: 10, source: "default" as const },
        max_bytes_to_read: { value: 4096, source: "saved query" as const },
      },
      { max_rows_to_read: 10, max_bytes_to_read: 4096 },
    ],
  ])("sends the read limits %j as %j", (readLimits, expected) => {
    const settings = querySettings(input({ readLimits }));
    expect({
      max_rows_to_read: settings.max_rows_to_read,
      max_bytes_to_read: settings.max_bytes_to_read,
    }).toEqual({ max_rows_to_read: undefined, max_bytes_to_read: undefined, ...expected });
  });

  it("keeps the call's own settings out of a text the server's query cache keys on", () => {
    const tuning = { settings: { use_query_cache: 1 }, nowStepMs: 60_000, stableText: true };
    const settings = querySettings(
      input({ tuning, readLimits: { max_rows_to_read: { value: 5, source: "default" } } }),
    );
    expect(settings.log_comment).toBeUndefined();
    expect(settings.max_execution_time).toBeUndefined();
    expect(settings.max_rows_to_read).toBe(5);
    const request = warehouseRequest(input({ tuning }));
    expect(request.clickhouse_settings).toMatchObject({
      max_execution_time: 2.5,
      log_comment: '{"endpoint":"usage.api-counts","caller":"studio","request_id":"req-1"}',
    });
    expect(request.query).not.toContain("log_comment");
  });
});

describe("warehouseRequest", () => {
  it("asks for the JSON format, whose statistics say what the query read", () => {
    expect(warehouseRequest(input()).format).toBe("JSON");
  });

  it("writes a caller's text in log_comment as an escaped string literal", () => {
    const owner = { endpoint: "logs.all", caller: "token:o'brien\\", request_id: "x' , limit = 1 --" };
    const { query } = warehouseRequest(input({ owner }));
    const literal = /log_comment = '((?:[^'\\]|\\.)*)'/.exec(query)?.[1];
    expect(literal).toBeDefined();
    const unescaped = literal!.replace(/\\(.)/g, "$1");
    expect(JSON.parse(unescaped)).toEqual(owner);
  });
});
