// The embedded engine's insert, with chDB's raw insert and the client's own
// insert faked: rows go in one raw insert as NDJSON bytes with their settings
// in the statement, the encoding gives the event loop back, a failing source
// or an aborted call sends nothing, and what the raw insert does not take
// goes to the client's insert.
import { Readable } from "node:stream";
import { ClickHouseError } from "@clickhouse/client";
import { describe, expect, it } from "vitest";
import { createEmbeddedInsert, type RawInsert } from "../../src/warehouse/embedded-insert.js";

type Params = Parameters<ReturnType<typeof createEmbeddedInsert>>[0];

/** An insert whose raw inserts and fallbacks are collected; `now` steps `stepMs` a reading. */
function harness(options: { stepMs?: number; fail?: Error } = {}) {
  const raw: RawInsert[] = [];
  const fallbacks: Params[] = [];
  let clock = 0;
  const insert = createEmbeddedInsert({
    rawInsert: async (params) => {
      raw.push(params);
      if (options.fail) throw options.fail;
      return { rowsWritten: params.values.toString().split("\n").length - 1, bytesWritten: 7, elapsed: 0.5 };
    },
    fallback: (async (params: Params) => {
      fallbacks.push(params);
      return { executed: true, query_id: "fallback", response_headers: {} };
    }) as never,
    now: () => (clock += options.stepMs ?? 0),
    sliceMs: 10,
  });
  return { insert, raw, fallbacks };
}

const rows = [{ id: "a", n: 1 }, { id: "b", text: 'quote " and\nnewline' }, { id: "c" }];
const expectedBytes = `${rows.map((row) => JSON.stringify(row)).join("\n")}\n`;

describe("the embedded engine's insert", () => {
  it("sends rows, from an array or an object stream, as one raw insert of NDJSON bytes", async () => {
    for (const values of [rows, Readable.from(rows)]) {
      const { insert, raw, fallbacks } = harness();
      const result = await insert({ table: "realtime_logs", values, format: "JSONEachRow" });
      expect(fallbacks).toEqual([]);
      expect(raw).toHaveLength(1);
      expect(Buffer.isBuffer(raw[0]!.values)).toBe(true);
      expect(raw[0]!.values.toString()).toBe(expectedBytes);
      expect(raw[0]).toMatchObject({ table: "realtime_logs", format: "JSONEachRow", settings: {} });
      expect(result).toMatchObject({ executed: true, summary: { written_rows: "3", elapsed_ns: "500000000" } });
    }
  });

  it("puts the table's deduplication token and the call's settings in the statement", async () => {
    const { insert, raw } = harness();
    await insert({
      table: "edge_logs SETTINGS insert_deduplication_token = 'ab-12'",
      values: rows,
      format: "JSONEachRow",
      clickhouse_settings: { async_insert: 0 },
    });
    expect(raw[0]).toMatchObject({
      table: "edge_logs",
      settings: { async_insert: 0, insert_deduplication_token: "ab-12" },
    });
  });

  it("gives the event loop back while it encodes", async () => {
    // Every reading of the clock moves it 4 ms: a slice of 10 ms ends every few rows.
    const { insert } = harness({ stepMs: 4 });
    let turns = 0;
    let counting = true;
    const count = () => {
      turns += 1;
      if (counting) setImmediate(count);
    };
    setImmediate(count);
    const many = Array.from({ length: 300 }, (_, i) => ({ id: i }));
    await insert({ table: "realtime_logs", values: many, format: "JSONEachRow" });
    counting = false;
    // A slice starts at a reading and ends at the third after it (12 ms > 10 ms):
    // one turn every third row, 100 for 300 rows. Unsliced, none would run.
    expect(turns).toBeGreaterThanOrEqual(99);
  });

  it("sends nothing when the source fails or the call is aborted", async () => {
    const { insert, raw } = harness();
    async function* failing() {
      yield rows[0];
      throw new Error("the source failed");
    }
    await expect(
      insert({ table: "realtime_logs", values: Readable.from(failing()), format: "JSONEachRow" }),
    ).rejects.toThrow("the source failed");
    const abort = new AbortController();
    abort.abort(new Error("the caller went away"));
    await expect(
      insert({ table: "realtime_logs", values: rows, format: "JSONEachRow", abort_signal: abort.signal }),
    ).rejects.toThrow("the caller went away");
    expect(raw).toEqual([]);
  });

  it("sends nothing for no rows", async () => {
    const { insert, raw } = harness();
    expect(await insert({ table: "realtime_logs", values: [], format: "JSONEachRow" })).toMatchObject({
      executed: false,
    });
    expect(raw).toEqual([]);
  });

  it("gives chDB's failure as the client's ClickHouseError, chDB's kept as the cause", async () => {
    const native = new Error(
      "Code: 27. DB::Exception: Cannot parse input: expected '\"' before: 'x': (CANNOT_PARSE_INPUT_ASSERTION_FAILED)",
    );
    const { insert } = harness({ fail: native });
    const error = await insert({ table: "realtime_logs", values: rows, format: "JSONEachRow" }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ClickHouseError);
    expect(error).toMatchObject({ code: "27", type: "CANNOT_PARSE_INPUT_ASSERTION_FAILED", cause: native });
  });

  it("leaves other formats, column lists, JSON documents and other statements to the client's insert", async () => {
    const { insert, raw, fallbacks } = harness();
    const others: Params[] = [
      { table: "realtime_logs", values: [["a", 1]], format: "JSONCompactEachRow" },
      { table: "realtime_logs", values: rows },
      { table: "realtime_logs", values: rows, format: "JSONEachRow", columns: ["id"] },
      { table: "realtime_logs", values: { a: [1] } as never, format: "JSONObjectEachRow" },
      { table: "db.realtime_logs", values: rows, format: "JSONEachRow" },
      { table: "realtime_logs SETTINGS insert_deduplication_token = 'a''b'", values: rows, format: "JSONEachRow" },
    ];
    for (const params of others) expect(await insert(params)).toMatchObject({ query_id: "fallback" });
    expect(fallbacks).toEqual(others);
    expect(raw).toEqual([]);
  });
});
