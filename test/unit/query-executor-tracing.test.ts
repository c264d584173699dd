// The executor's spans, with a recording Tracing and a fake warehouse client
// that keeps what it was sent: the wait for a turn and each warehouse query
// are children of the current span, the query's span names the query id the
// warehouse was given, and a ClickHouse server is sent that span's
// traceparent (where propagateTrace says so) so that its own spans join.
import { describe, expect, it } from "vitest";
import { createQueryExecutor, type SavedQuery } from "../../src/executor/index.js";
import { fixedClock } from "../../src/observability/index.js";
import type { WarehouseClient } from "../../src/warehouse/index.js";
import { recordingTracing, type RecordingTracing } from "../support/recording-tracing.js";

const query: SavedQuery = { name: "logs.all", sql: "SELECT 1 AS n", maxRows: 100 };

interface Sent {
  query_id?: string;
  http_headers?: Record<string, string>;
}

function fakeClient(tracing: RecordingTracing, answers: string[]) {
  const sent: Sent[] = [];
  /** The spans open (not ended) when each query was sent. */
  const openAtSend: string[][] = [];
  const client = {
    query: async (params: Sent) => {
      sent.push(params);
      openAtSend.push(tracing.spans.filter((s) => s.ends === 0).map((s) => s.name));
      const text = answers.shift() ?? "[]";
      return { text: async () => text, response_headers: {} };
    },
  } as unknown as WarehouseClient;
  return { client, sent, openAtSend };
}

describe("executor spans", () => {
  it.each([
    [true, "a ClickHouse server"],
    [false, "the embedded engine"],
  ])("with propagateTrace %s (%s): a wait span, then a query span with its query id", async (propagateTrace) => {
    const tracing = recordingTracing();
    const { client, sent, openAtSend } = fakeClient(tracing, ['[{"n":1}]']);
    const executor = createQueryExecutor({ client, clock: fixedClock(0), tracing, propagateTrace });
    const call = tracing.startCall("logs.all", () => undefined, {});
    const result = await tracing.within(call, () => executor.execute(query, {}));
    expect(result.rows).toEqual([{ n: 1 }]);
    const [wait, warehouse] = tracing.spans.filter((s) => s.parent === call);
    expect(wait).toMatchObject({ name: "admission wait", ends: 1, failure: undefined });
    expect(warehouse).toMatchObject({ name: "warehouse query", ends: 1, failure: undefined });
    expect(warehouse!.attributes).toEqual({ "db.system.name": "clickhouse", "clickhouse.query_id": result.queryId });
    expect(sent[0]!.query_id).toBe(result.queryId);
    // The turn came before the query was sent: only the call and the query's own span were open.
    expect(openAtSend[0]).toEqual(["logs.all", "warehouse query"]);
    expect(sent[0]!.http_headers).toEqual(
      propagateTrace ? { traceparent: `00-${tracing.traceId}-${warehouse!.id}-01` } : undefined,
    );
  });

  it("gives each try of a query its own span, named by its own query id", async () => {
    const tracing = recordingTracing();
    // A failed query's leftover output first (see result-rows.ts), then the query's own answer.
    const { client, sent } = fakeClient(tracing, ['[{"stale":1}][{"n":1}]', '[{"n":2}]']);
    const executor = createQueryExecutor({ client, clock: fixedClock(0), tracing, propagateTrace: true });
    const call = tracing.startCall("logs.all", () => undefined, {});
    await tracing.within(call, () => executor.execute(query, {}));
    const queries = tracing.spans.filter((s) => s.name === "warehouse query");
    expect(queries.map((s) => s.attributes["clickhouse.query_id"])).toEqual(sent.map((s) => s.query_id));
    expect(new Set(sent.map((s) => s.query_id)).size).toBe(2);
    expect(sent.map((s) => s.http_headers?.traceparent?.slice(36, 52))).toEqual(queries.map((s) => s.id));
  });

  it("ends the wait span failed when the call is refused a turn", async () => {
    const tracing = recordingTracing();
    let release!: () => void;
    // A warehouse that holds the first query until released: the one turn is taken, and the queue holds none.
    const slow = {
      query: () =>
        new Promise((resolve) => (release = () => resolve({ text: async () => "[]", response_headers: {} }))),
    } as unknown as WarehouseClient;
    const busy = createQueryExecutor({
      client: slow,
      clock: fixedClock(0),
      tracing,
      admission: { maxConcurrent: 1, maxQueued: 0 },
    });
    const call = tracing.startCall("logs.all", () => undefined, {});
    const first = tracing.within(call, () => busy.execute(query, {}));
    await expect(tracing.within(call, () => busy.execute(query, {}))).rejects.toThrow(/resource_exhausted|too many/i);
    release();
    await first;
    const waits = tracing.spans.filter((s) => s.name === "admission wait");
    expect(waits.map((s) => s.ends)).toEqual([1, 1]);
    expect(waits[1]!.failure).toMatch(/resource_exhausted/);
  });

  it("traces nothing outside a span, and sends no trace headers", async () => {
    const tracing = recordingTracing();
    const { client, sent } = fakeClient(tracing, []);
    const executor = createQueryExecutor({ client, clock: fixedClock(0), tracing, propagateTrace: true });
    await executor.execute(query, {});
    expect(tracing.spans).toEqual([]);
    expect(sent[0]!.http_headers).toBeUndefined();
  });
});
